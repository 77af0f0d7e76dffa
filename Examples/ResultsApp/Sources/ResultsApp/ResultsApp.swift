import Foundation
import WellKit

/// A list screen's model receiving another process's load on the main actor.
///
/// `ResultsApp` makes a store of 30 wells in two statuses, shows it through ``WellListModel``, then
/// starts itself again as a second process (`ResultsApp load STORE CSV`) that loads 10 more wells
/// in a third status. The model hears the load on the main actor (each callback asserts it), while
/// the main actor keeps reading the model, as a screen does. Then the app inserts, updates and
/// deletes a well itself, and the model hears each. Exit 0 when the model shows all 40 wells in
/// three sections and heard every write, 1 otherwise.
@main
struct ResultsApp {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count == 4, arguments[1] == "load" {
            // The second process: another app, or `wells load`, writing to the same file.
            let store = try WellStore(path: arguments[2], mode: .existing)
            _ = try store.load(contentsOf: URL(fileURLWithPath: arguments[3]))
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ResultsApp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appendingPathComponent("wells.sqlite").path
        let second = directory.appendingPathComponent("second.csv").path
        try wells(31...40, status: { _ in "Suspended" }).write(toFile: second, atomically: true, encoding: .utf8)

        let store = try WellStore(path: storePath)
        // The first list arrives as bytes (from the network, say), the second as a file.
        let first = Data(wells(1...30, status: { $0 % 2 == 0 ? "Active" : "Abandoned" }).utf8)
        _ = try store.load(data: first, named: "first.csv")
        let model = try WellListModel(store: store)
        model.results.startObserving(interval: .milliseconds(50))
        print("before:", model.sections.map { "\($0.name) \($0.count)" }.joined(separator: ", "))

        let loader = Process()
        loader.executableURL = URL(fileURLWithPath: arguments[0])
        loader.arguments = ["load", storePath, second]
        try loader.run()

        // The main actor stays free between reads of the model: the changes arrive in those gaps.
        let deadline = ContinuousClock.now + .seconds(30)
        var reads = 0
        while model.rowCount < 40, ContinuousClock.now < deadline {
            reads += 1
            try await Task.sleep(for: .milliseconds(10))
        }
        loader.waitUntilExit()

        // The app's own writes, each seen by the model on the main actor: insert, update, delete.
        func waitFor(_ done: () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while !done(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }
        var added = Well(pin: WellPin(id: 0, name: "Well 41", latitude: 50.41, longitude: -114.41), detail: WellDetail(identifier: "W1041"))
        added.status = "Active"
        try await store.insert(added)
        try await waitFor { model.rowCount == 41 }
        _ = try model.visibleNames()  // the rows on screen: the controller reports updates of those
        if var first = try store.well(identifier: "W1001") {
            first.name = "Well 1, renamed"
            try await store.update(first)
            try await waitFor { model.updated >= 1 }
        }
        try await store.delete(identifier: "W1041")
        try await waitFor { model.rowCount == 40 }
        model.results.stopObserving()
        print("after:", model.sections.map { "\($0.name) \($0.count)" }.joined(separator: ", "))
        print("heard on the main actor: \(model.inserted) inserted, \(model.updated) updated, \(model.deleted) deleted, \(model.sectionsInserted) section inserted, "
              + "\(model.callbacks) callbacks; \(reads) reads of the model meanwhile")
        print("first row of each section:", try model.visibleNames().joined(separator: ", "))
        guard loader.terminationStatus == 0, model.rowCount == 40, model.sections.count == 3,
              model.inserted == 11, model.updated >= 1, model.deleted == 1, model.sectionsInserted == 1, model.results.fetchedCount == 40,
              try model.visibleNames().contains("Well 1, renamed") else {
            print("ResultsApp: the model did not receive the second process's load and the app's own writes")
            exit(1)
        }
    }

    /// A well list as an agency writes one: identifier, name, position and status.
    static func wells(_ numbers: ClosedRange<Int>, status: (Int) -> String) -> String {
        var csv = "uwi,name,latitude,longitude,status\n"
        for n in numbers {
            csv += "W\(1000 + n),Well \(n),\(50 + Double(n) / 100),\(-114 - Double(n) / 100),\(status(n))\n"
        }
        return csv
    }
}
