import ArgumentParser
import WellKit

/// The `wells` command-line tool: load public well lists into a SpatiaLite store and query them.
@main
struct Wells: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wells",
        abstract: "Load public well lists into a SpatiaLite store and query them.",
        version: WellKit.version,
        subcommands: [Load.self, Generate.self]
    )
}
