import ArgumentParser
import WellKit

/// The query commands' lines (`bbox`, `near`, `find`, `show`, `count`) read without ArgumentParser's
/// reflection, when every word is one the command knows.
///
/// ArgumentParser builds a command's arguments from its type at run time: it reflects on a new
/// instance of the command, and each generic type it meets on the way is looked up by its mangled
/// name, which checks its requirements by scanning every protocol conformance in the binary. A city
/// box pays that on every run, and it is a large share of the process's time beside a query that
/// SQLite answers at once (in a `perf` profile, `parseAsRoot`, mostly `swift_getTypeByMangledName`
/// and the conformance scan; `wells-bench bbox --processes`, Benchmarks/README.md's "Start-up").
///
/// Each value is read by the type ArgumentParser reads it with (`init(argument:)`), into the same
/// command, which then runs its own `validate()` checks. Any other line returns nil and
/// ArgumentParser reads it as before, so every message, usage and help text stays its: `--help`, a
/// short or unknown option, an option that takes one value given twice, a value that does not read,
/// a value that starts with `-` after its option, a check that fails. `QuickCommandLineTests` checks
/// that each line read here is the command ArgumentParser reads, property by property.
enum QuickCommandLine {
    /// The command `arguments` (after ``Wells/positionalCoordinates(_:)``) name, or nil for ArgumentParser to read them.
    static func command(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let name = arguments.first else { return nil }
        let rest = arguments.dropFirst()
        do {
            switch name {
            case "bbox": return try Wells.Bbox(quick: QuickWords(rest, of: Wells.Bbox.self))
            case "near": return try Wells.Near(quick: QuickWords(rest, of: Wells.Near.self))
            case "find": return try Wells.Find(quick: QuickWords(rest, of: Wells.Find.self))
            case "show": return try Wells.Show(quick: QuickWords(rest, of: Wells.Show.self))
            case "count": return try Wells.Count(quick: QuickWords(rest, of: Wells.Count.self))
            default: return nil
            }
        } catch {
            return nil
        }
    }
}

/// A command or group of options that the quick reading knows: the long names of its options that
/// take a value, and of its flags (without the leading `--`).
protocol QuickReadable {
    // Arrays, not sets: a `Set<String>` is one more generic type for the runtime to look up at
    // start-up (a scan of the binary's conformances), and a lookup among 20 names costs nothing.
    static var quickOptions: [String] { get }
    static var quickFlags: [String] { get }
}

/// The words of a command line, split into options, flags and positional arguments, as
/// ArgumentParser splits a line whose options are all long: `--name value`, `--name=value`, `--flag`,
/// and after `--`, positional arguments only.
struct QuickWords {
    /// Why a line is left to ArgumentParser; its own reading says what is wrong, if anything is.
    struct NotQuick: Error {}

    private var values: [String: [String]] = [:]
    private var flags: [String] = []
    private var positionals: [String] = []
    /// How many positional arguments have been taken.
    private var taken = 0

    init<Command: QuickReadable>(_ words: ArraySlice<String>, of command: Command.Type) throws {
        var k = words.startIndex
        var terminated = false
        while k < words.endIndex {
            let word = words[k]
            k += 1
            if terminated || !word.hasPrefix("-") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                terminated = true
                continue
            }
            guard word.hasPrefix("--") else { throw NotQuick() }
            let body = word.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                let name = String(body[..<equals])
                // `--db=` is a missing value to ArgumentParser.
                guard Command.quickOptions.contains(name), body.index(after: equals) < body.endIndex else { throw NotQuick() }
                values[name, default: []].append(String(body[body.index(after: equals)...]))
            } else if Command.quickFlags.contains(String(body)) {
                guard !flags.contains(String(body)) else { throw NotQuick() }
                flags.append(String(body))
            } else if Command.quickOptions.contains(String(body)), k < words.endIndex, !words[k].hasPrefix("-") {
                values[String(body), default: []].append(words[k])
                k += 1
            } else {
                throw NotQuick()
            }
        }
    }

    /// The value of an option that takes one, read as ArgumentParser reads it; nil when not given.
    func value<Value: ExpressibleByArgument>(_ name: String) throws -> Value? {
        guard let given = values[name] else { return nil }
        guard given.count == 1, let value = Value(argument: given[0]) else { throw NotQuick() }
        return value
    }

    /// The values of a repeatable option, in order.
    func values<Value: ExpressibleByArgument>(_ name: String) throws -> [Value] {
        try (values[name] ?? []).map { try Value(argument: $0) ?? { throw NotQuick() }() }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The next positional argument, nil when there is none left.
    mutating func positional<Value: ExpressibleByArgument>() throws -> Value? {
        guard taken < positionals.count else { return nil }
        taken += 1
        return try Value(argument: positionals[taken - 1]) ?? { throw NotQuick() }()
    }

    /// Every positional argument was taken.
    func finish() throws {
        guard taken == positionals.count else { throw NotQuick() }
    }
}

// MARK: - The option groups

extension FilterOptions: QuickReadable {
    static let quickOptions: [String] = ["where", "within", "within-crs"]
    static let quickFlags: [String] = []

    init(quick words: QuickWords) throws {
        self.init()
        conditions = try words.values("where")
        within = try words.value("within")
        withinCRS = try words.value("within-crs")
        try validate()
    }
}

extension QueryOptions: QuickReadable {
    static let quickOptions = FilterOptions.quickOptions + ["sort", "limit", "offset", "fields", "format", "out", "to-crs"]
    static let quickFlags = FilterOptions.quickFlags + ["force"]

    init(quick words: QuickWords) throws {
        self.init()
        filter = try FilterOptions(quick: words)
        sort = try words.values("sort")
        limit = try words.value("limit")
        offset = try words.value("offset")
        fields = try words.value("fields")
        format = try words.value("format") ?? .table
        out = try words.value("out")
        force = words.flag("force")
        toCRS = try words.value("to-crs")
        try validate()
    }
}

extension StoreOptions: QuickReadable {
    static let quickOptions: [String] = ["db"]
    static let quickFlags: [String] = ["sql-debug"]

    init(quick words: QuickWords) throws {
        self.init()
        db = try words.value("db")
        sqlDebug = words.flag("sql-debug")
        try validate()
    }
}

// MARK: - The commands

extension Wells.Bbox: QuickReadable {
    static let quickOptions = QueryOptions.quickOptions + StoreOptions.quickOptions + ["crs", "antimeridian"]
    static let quickFlags = QueryOptions.quickFlags + StoreOptions.quickFlags

    init(quick words: QuickWords) throws {
        self.init()
        var words = words
        box = try words.positional() ?? { throw QuickWords.NotQuick() }()
        try words.finish()
        crs = try words.value("crs")
        antimeridian = try words.value("antimeridian") ?? .split
        query = try QueryOptions(quick: words)
        store = try StoreOptions(quick: words)
        try validate()
    }
}

extension Wells.Near: QuickReadable {
    static let quickOptions = QueryOptions.quickOptions + StoreOptions.quickOptions
        + ["radius", "nearest", "from", "from-crs", "from-x", "from-y"]
    static let quickFlags = QueryOptions.quickFlags + StoreOptions.quickFlags + ["pairs"]

    init(quick words: QuickWords) throws {
        self.init()
        var words = words
        point = try words.positional()
        try words.finish()
        radius = try words.value("radius")
        nearest = try words.value("nearest")
        from = try words.value("from")
        pairs = words.flag("pairs")
        fromCRS = try words.value("from-crs")
        fromX = try words.value("from-x")
        fromY = try words.value("from-y")
        query = try QueryOptions(quick: words)
        store = try StoreOptions(quick: words)
        try validate()
    }
}

extension Wells.Find: QuickReadable {
    static let quickOptions = QueryOptions.quickOptions + StoreOptions.quickOptions
    static let quickFlags = QueryOptions.quickFlags + StoreOptions.quickFlags

    init(quick words: QuickWords) throws {
        self.init()
        try words.finish()
        query = try QueryOptions(quick: words)
        store = try StoreOptions(quick: words)
        try validate()
    }
}

extension Wells.Show: QuickReadable {
    static let quickOptions = StoreOptions.quickOptions + ["format"]
    static let quickFlags = StoreOptions.quickFlags + ["history"]

    init(quick words: QuickWords) throws {
        self.init()
        var words = words
        identifier = try words.positional() ?? { throw QuickWords.NotQuick() }()
        try words.finish()
        format = try words.value("format") ?? .table
        history = words.flag("history")
        store = try StoreOptions(quick: words)
        try validate()
    }
}

extension Wells.Count: QuickReadable {
    static let quickOptions = FilterOptions.quickOptions + StoreOptions.quickOptions
        + ["by", "by-area", "area-crs", "grid", "grid-crs", "sum", "mean", "min", "max", "format"]
    static let quickFlags = FilterOptions.quickFlags + StoreOptions.quickFlags + ["skip-empty"]

    init(quick words: QuickWords) throws {
        self.init()
        try words.finish()
        by = try words.value("by")
        byArea = try words.value("by-area")
        areaCRS = try words.value("area-crs")
        grid = try words.value("grid")
        gridCRS = try words.value("grid-crs")
        sum = try words.values("sum")
        mean = try words.values("mean")
        min = try words.values("min")
        max = try words.values("max")
        skipEmpty = words.flag("skip-empty")
        filter = try FilterOptions(quick: words)
        format = try words.value("format") ?? .table
        store = try StoreOptions(quick: words)
        try validate()
    }
}
