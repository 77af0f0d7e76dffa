import ArgumentParser
import Glibc
import WellKit

/// The `wells` command-line tool: load public well lists into a SpatiaLite store and query them.
@main
struct Wells: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wells",
        abstract: "Load public well lists into a SpatiaLite store and query them.",
        discussion: """
            Start with `wells load FILE --db wells.sqlite`, then query with bbox, near, find or show. \
            The store is a SpatiaLite file: QGIS and ogrinfo open its pins layer.
            """,
        version: wellKitVersion,
        subcommands: [Demo.self, Load.self, Bbox.self, Near.self, Show.self, Find.self, List.self, Suspects.self, CRS.self, Optimize.self, Bench.self, Generate.self]
    )

    /// Parses and runs the command as ArgumentParser's `main` does, except that its messages, which
    /// quote the user's tokens, are printed with control characters escaped (``Terminal/printable(_:)``).
    static func main() async {
        let arguments = Array(positionalCoordinates(Array(CommandLine.arguments.dropFirst())))
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = Terminal.printable(fullMessage(for: error))
            if !message.isEmpty {
                if code == .success { print(message) } else { Terminal.errorRaw(message + "\n") }
            }
            Glibc.exit(code.rawValue)
        }
    }

    /// Lets a positional argument start with a minus sign, as `wells bbox -114.2,50.9,-113.9,51.2` does.
    ///
    /// ArgumentParser reads `-114.2,…` as an option. A numeric argument that follows no option
    /// expecting a value is moved after a `--`, where it can only be positional.
    static func positionalCoordinates(_ arguments: [String]) -> [String] {
        guard !arguments.contains("--") else { return arguments }
        let flags: Set<String> = ["--quiet", "-q", "--dry-run", "--sql-debug", "--all", "--watch", "--dirty", "--help", "-h", "--version"]
        var kept: [String] = [], moved: [String] = []
        for (k, argument) in arguments.enumerated() {
            let numeric = argument.count > 1 && argument.hasPrefix("-") && argument.dropFirst().first?.isNumber == true
                && argument.allSatisfy { $0.isNumber || ".,-+eE".contains($0) }
            let previous = k > 0 ? arguments[k - 1] : ""
            if numeric && (!previous.hasPrefix("-") || flags.contains(previous) || previous.contains("=")) {
                moved.append(argument)
            } else {
                kept.append(argument)
            }
        }
        return moved.isEmpty ? arguments : kept + ["--"] + moved
    }
}
