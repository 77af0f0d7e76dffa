import ArgumentParser
import Foundation
import WellKit
import WellKitSynthetic

extension Wells {
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Run the main job on the built-in default: generate a well list, load it, and query it.",
            discussion: """
                Writes Data/wells.csv (244,292 synthetic Alberta-like wells, seed 1) unless it exists, loads it into \
                Data/wells.sqlite, then runs a bounding-box, a nearest and a filtered query. Each step prints the \
                `wells` command it runs, and runs exactly that command: copy one to run it again.
                """)

        @Option(help: "The directory for the generated file and the store.")
        var directory = "Data"

        @Option(help: "Wells to generate.")
        var count = WellGenerator.defaultCount

        func validate() throws {
            guard count >= 1 && count <= CountLimits.maximumCount else {
                throw ValidationError("--count must be from 1 to \(grouped(CountLimits.maximumCount)), got '\(count)'")
            }
        }

        /// The commands the demo runs, in order, as argument lists for `wells`.
        func commands(generate: Bool) -> [[String]] {
            let csv = "\(directory)/wells.csv", db = "\(directory)/wells.sqlite"
            return (generate ? [["generate", "--count", "\(count)", "--seed", "1", "--out", csv]] : []) + [
                ["load", csv, "--db", db],
                ["bbox", "-114.2,50.9,-113.9,51.2", "--db", db, "--limit", "10"],
                ["near", "51.05,-114.07", "--nearest", "5", "--db", db],
                ["find", "--where", "status = Abandoned", "--where", #"operator contains[cd] "acme""#,
                 "--sort", "detail.spud_date:desc", "--limit", "5", "--db", db],
            ]
        }

        func run() async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let steps = commands(generate: !FileManager.default.fileExists(atPath: "\(directory)/wells.csv"))
            for (k, arguments) in steps.enumerated() {
                print((k == 0 ? "" : "\n") + "$ " + Self.commandLine(arguments))
                fflush(nil)   // the commands write to the file descriptor; keep the order
                var command = try Wells.parseAsRoot(Wells.positionalCoordinates(arguments))
                if var command = command as? any AsyncParsableCommand {
                    try await command.run()
                } else {
                    try command.run()
                }
                fflush(nil)
            }
        }

        /// `wells` and the arguments as a shell would need them typed: each quoted where it must be.
        static func commandLine(_ arguments: [String]) -> String {
            (["wells"] + arguments.map(shellQuoted)).joined(separator: " ")
        }

        /// `word` with its control characters escaped, quoted unless it is ASCII letters, digits and `-_./,:=+@%`.
        static func shellQuoted(_ word: String) -> String {
            let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_./,:=+@%".unicodeScalars.contains($0))
            }
            return shellWord(SafeText.escaped(word), plain: plain)
        }
    }
}
