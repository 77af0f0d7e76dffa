import ArgumentParser
import WellKit

extension Wells {
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a synthetic well list to standard output.")
        func run() async throws {}
    }
}
