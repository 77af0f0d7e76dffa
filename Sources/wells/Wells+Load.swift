import ArgumentParser
import WellKit

extension Wells {
    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Load a well CSV into a store.")
        func run() async throws {}
    }
}
