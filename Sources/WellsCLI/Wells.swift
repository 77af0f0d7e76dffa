import ArgumentParser
import Foundation
import WellKit
#if PostgreSQL
import WellKitPostgreSQL
#endif

/// The `wells` command-line tool: load public well lists into a SpatiaLite store and query them.
package struct Wells: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "wells",
        abstract: "Load public well lists into a SpatiaLite store and query them.",
        discussion: """
            Start with `wells load FILE --db wells.sqlite`, then query with bbox, near, find or show. \
            The store is a SpatiaLite file: QGIS and ogrinfo open its layer `wells`, one point per well with every field. For a store that a team \
            shares, --db (or $WELLS_DB) takes a PostgreSQL/PostGIS database instead, as \
            postgresql://user@host/db (TLS, passwords and timeouts as libpq reads them; see Docs/operations.md).
            """,
        version: wellKitVersion,
        subcommands: [Demo.self, Load.self, Bbox.self, Near.self, Show.self, Find.self, List.self, Count.self, Index.self, Suspects.self, Changes.self, Serve.self, CRS.self, Optimize.self, Check.self, Generate.self]
    )

    package init() {}

    /// Registers the storage engines this build has beside SQLite: PostgreSQL with the `PostgreSQL` trait.
    package static func enableEngines() {
        #if PostgreSQL
        WellStore.enablePostgreSQL()
        #endif
    }

    /// Parses and runs a command of `root` as `main(_:)` does, but echoes ArgumentParser's messages (which
    /// quote the user's tokens) with control characters escaped, and exits with ``exitCode(for:)``.
    ///
    /// This is the one place that answers an error. ArgumentParser's own (usage errors, `ValidationError`,
    /// `ExitCode`, `--help`) are printed as ArgumentParser words them; any other error a command throws
    /// is printed as `wells: error: …` (``Terminal/failSafely(_:)``) with the exit code for its kind.
    package static func run(_ arguments: [String], root: any ParsableCommand.Type = Wells.self) -> Never {
        // `--version` alone answers before ArgumentParser builds the command tree, whose dynamic casts
        // each scan the binary's protocol conformances (half of the instructions of a `--version`).
        if arguments == ["--version"], case let version = root.configuration.version, !version.isEmpty {
            print(version)
            Terminal.flushStandardOutput()
            Foundation.exit(0)
        }
        // Before any store opens SQLite: its memory statistics cost every allocation a global mutex.
        WellStore.disableSQLiteMemoryStatistics()
        enableEngines()
        // A query command's usual line is read without ArgumentParser's reflection (``QuickCommandLine``).
        if ObjectIdentifier(root) == ObjectIdentifier(Wells.self), var command = QuickCommandLine.command(arguments) {
            InterruptGuard.arm()
            finish(command: command, root: root) { try command.run() }
        }
        let command: any ParsableCommand
        do {
            command = try root.parseAsRoot(arguments)
        } catch {
            exit(answering: error, root: root)
        }
        // `wells serve` handles the signals itself, with a graceful shutdown.
        if type(of: command).configuration.commandName != "serve" { InterruptGuard.arm() }
        // Only a command that awaits (serving, watching, the demo's steps) runs in a task, on the
        // concurrency pool; the others run here, on the main thread, and start no thread of their
        // own, whose start-up a city box would wait for (Benchmarks/README.md's "Start-up").
        guard var asynchronous = command as? any AsyncParsableCommand else {
            var command = command
            finish(command: command, root: root) { try command.run() }
        }
        Task {
            do {
                try await asynchronous.run()
                finish(command: asynchronous, root: root) {}
            } catch {
                finish(command: asynchronous, root: root) { throw error }
            }
        }
        dispatchMain()
    }

    /// Exits after `body`, a command's run: 0, or the code and message for what it threw.
    private static func finish(command: any ParsableCommand, root: any ParsableCommand.Type, _ body: () throws -> Void) -> Never {
        do {
            try body()
        } catch where !isArgumentParserError(error) {
            Foundation.exit(Terminal.failSafely(error).rawValue)
        } catch let error as ValidationError {
            // A check that needs what `run()` resolves (the store's path, an output's file) throws
            // there; answer it as ArgumentParser answers `validate()`'s, with this command's usage
            // rather than the root's "Usage: wells <subcommand>".
            Terminal.flushStandardOutput()
            Terminal.errorRaw(SafeText.escaped(usageError(error.message, command: type(of: command), root: root)) + "\n")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            Terminal.flushStandardOutput()
            exit(answering: error, root: root)
        }
        Terminal.flushStandardOutput()
        Foundation.exit(0)
    }

    /// Exits as ArgumentParser answers `error` (a usage error, `--help`, `ExitCode`, `CleanExit`).
    private static func exit(answering error: any Error, root: any ParsableCommand.Type) -> Never {
        let code = root.exitCode(for: error)
        let message = root.fullMessage(for: error)
        if !message.isEmpty {
            let text = SafeText.escaped(message) + "\n"
            if code == .success { Terminal.writeStandardOutput(text) } else { Terminal.errorRaw(text) }
        }
        Foundation.exit(code.rawValue)
    }

    /// A usage error of `command` (a command in `root`'s tree) worded as ArgumentParser words one
    /// that `validate()` throws: the message, the command's usage, and where its help is.
    static func usageError(_ message: String, command: any ParsableCommand.Type, root: any ParsableCommand.Type) -> String {
        func path(to command: any ParsableCommand.Type, from node: any ParsableCommand.Type) -> [String]? {
            let name = node.configuration.commandName ?? String(describing: node).lowercased()
            if ObjectIdentifier(node) == ObjectIdentifier(command) { return [name] }
            for child in node.configuration.subcommands {
                if let rest = path(to: command, from: child) { return [name] + rest }
            }
            return nil
        }
        let names = (path(to: command, from: root) ?? [root.configuration.commandName ?? "wells"]).joined(separator: " ")
        // ArgumentParser indents a usage that wraps under its first line, after "Usage: ".
        let usage = root.usageString(for: command).replacingOccurrences(of: "\n", with: "\n       ")
        return "Error: \(message)\nUsage: \(usage)\n  See '\(names) --help' for more information."
    }

    /// The exit code of `error` as ``run(_:root:)`` exits with it: ArgumentParser's for its own errors,
    /// ``Terminal/exitCode(for:)`` for the library's and the system's.
    package static func exitCode(for error: any Error) -> ExitCode {
        isArgumentParserError(error) ? argumentParserExitCode(Wells.self, error) : Terminal.exitCode(for: error)
    }

    /// Whether ArgumentParser words `error` and chooses its exit code: its parse errors, and what
    /// commands throw to say "usage", "done" or "exit with this code" (`ValidationError`, `CleanExit`,
    /// `ExitCode`), as against a failure to report. Its parse errors are of internal types, hence the module name.
    static func isArgumentParserError(_ error: any Error) -> Bool {
        error is ExitCode || error is CleanExit || error is ValidationError
            || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }

    private static func argumentParserExitCode<Root: ParsableCommand>(_ root: Root.Type, _ error: any Error) -> ExitCode {
        root.exitCode(for: error)
    }

    /// The options of every command that take no value; any other `--name` expects one.
    ///
    /// `HardeningTests` checks this set against the command tree, hidden options included.
    package static let flags: Set<String> = [
        "--quiet", "-q", "--dry-run", "--sql-debug", "--all", "--watch", "--dirty", "--dms",
        "--implied-west", "--implied-east", "--implied-south", "--longitudes-0-360", "--decimal-comma", "--no-infer", "--reject-suspects", "--no-location-check", "--force", "--help", "-h", "--version",
        "--quick",  // check
        "--skip-empty",  // count
        "--vacuum",  // optimize
        "--release", "--confirm-gone",  // load
        "--list",  // changes
        "--history",  // show
        "--pairs",  // near --from
        "--exit-with-stdin",  // serve (hidden)
        "--keep-stores",  // wells-bench scale
        "--no-eager",  // wells-bench list
    ]

    /// Lets a positional argument or an option's value start with a minus sign.
    ///
    /// ArgumentParser reads any word that starts with `-` as an option, so `--limit -1` would say
    /// "Missing value" and `wells bbox -114.2,50.9,-113.9,51.2` would take the box for an option.
    /// A word that starts like a number (`-1`, `-.5`, `-2km`, `-inf`, `-114.2,50.9,…`) and follows an
    /// option expecting a value is joined to it (`--limit=-1`), so the option's own validation speaks;
    /// one that follows no such option is moved after a `--`, where it can only be positional.
    package static func positionalCoordinates(_ arguments: [String]) -> [String] {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        var kept: [String] = [], moved: [String] = []
        var k = 0
        while k < end {
            let argument = arguments[k]
            if startsLikeNumber(argument) {
                let previous = kept.last ?? ""
                if expectsValue(previous) && k > 0 && arguments[k - 1] == previous {
                    kept[kept.count - 1] = previous + "=" + argument
                } else {
                    moved.append(argument)
                }
            } else {
                kept.append(argument)
            }
            k += 1
        }
        let rest = arguments[end...]
        return moved.isEmpty ? kept + rest : kept + ["--"] + moved + rest.dropFirst()
    }

    /// `-1`, `-0.5`, `-.5`, `-2km`, `-inf`, `-nan`, `-114.2,50.9,…`: a minus sign, then a number.
    static func startsLikeNumber(_ word: String) -> Bool {
        guard word.count > 1, word.hasPrefix("-"), let next = word.dropFirst().first else { return false }
        if next.isASCII && (next.isNumber || next == ".") { return true }
        let lower = word.lowercased()
        return lower.hasPrefix("-inf") || lower.hasPrefix("-nan")
    }

    /// Whether `word` is an option that takes a value in the next word: `--limit`, not `--quiet` or `--limit=5`.
    static func expectsValue(_ word: String) -> Bool {
        word.hasPrefix("-") && !word.contains("=") && !flags.contains(word) && !startsLikeNumber(word) && word != "-" && word != "--"
    }
}
