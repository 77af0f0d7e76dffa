import Foundation
import GRDB

extension BatchedResults {
    /// Refreshes only if the store changed since the last fetch, and returns what changed, or nil.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let diff = try results.checkForChanges() {
    ///     for change in diff.rows(.delete) { print("deleted", change.id) }
    /// }
    /// ```
    ///
    /// The check reads `PRAGMA data_version` on a connection of its own, opened read-only on the
    /// store file and shared by the controllers of this process. SQLite changes that value
    /// whenever another connection commits: this process's writer through ``WellStore/pool`` as
    /// much as another process's `wells load`. An unchanged value costs no query over wells.
    /// (`total_changes()` would miss other processes, and the pool's readers are chosen at
    /// random, so their `data_version` values cannot be compared.)
    public func checkForChanges() throws -> ResultsDiff? {
        try withLock {
            guard current != nil, let baselineVersion else { return try refresh() }
            guard try changeMonitor().version() != baselineVersion else { return nil }
            return try refresh()
        }
    }

    /// Watches the store and calls `onChange` with each non-empty change, until ``stopObserving()``.
    ///
    /// For example:
    ///
    /// ```swift
    /// results.startObserving { diff in print(diff.rowChanges.count, "changes") }
    /// ```
    ///
    /// Writes of this process through ``WellStore/pool`` are seen at once: a GRDB
    /// `DatabaseRegionObservation` of `pins` and `details` triggers a check after each commit.
    /// Other processes' writes are seen by ``checkForChanges()`` every `interval`. `onChange`
    /// and the delegate run on a background task, holding the controller's lock.
    public func startObserving(interval: Duration = .milliseconds(250),
                               onError: (@Sendable (any Error) -> Void)? = nil,
                               onChange: @escaping @Sendable (ResultsDiff) -> Void) {
        let token = withLock {
            observation?.stop()
            observation = nil
            observationGeneration += 1
            return observationGeneration
        }
        let deliver: @Sendable (BatchedResults) -> Void = { results in
            results.withLock {
                // A check queued before stopObserving() or a newer startObserving() delivers nothing.
                guard results.observation != nil, results.observationGeneration == token else { return }
                do {
                    if let diff = try results.checkForChanges() { onChange(diff) }
                } catch {
                    onError?(error)
                }
            }
        }
        let poll = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                deliver(self)
            }
        }
        let region = DatabaseRegionObservation(tracking: Table("pins"), Table("details"))
        let cancellable = region.start(in: store.pool, onError: { onError?($0) }) { [weak self] _ in
            guard let self else { return }
            Task.detached { deliver(self) }
        }
        withLock { observation = Observation(poll: poll, cancellable: cancellable) }
    }

    /// Stops the observation ``startObserving(interval:onError:onChange:)`` started.
    public func stopObserving() {
        withLock {
            observation?.stop()
            observation = nil
        }
    }

    /// Forgets the snapshot shared under `name`, or all shared snapshots when nil.
    public static func deleteCache(named name: String?) {
        if let name { NamedSnapshots.remove(name) } else { NamedSnapshots.removeAll() }
    }

    /// The shared `data_version` connection for the store file, opened on first use.
    func changeMonitor() throws -> ChangeMonitor {
        if let monitor { return monitor }
        let opened = try ChangeMonitor.shared(path: store.path)
        monitor = opened
        return opened
    }
}

/// A running observation: the polling task and the region observation.
struct Observation {
    let poll: Task<Void, Never>
    let cancellable: AnyDatabaseCancellable

    func stop() {
        poll.cancel()
        cancellable.cancel()
    }
}

/// A read-only connection that only reads `PRAGMA data_version`, one per store file per process.
final class ChangeMonitor: Sendable {
    let queue: DatabaseQueue
    /// Distinguishes monitors, whose versions are not comparable with each other's.
    let generation: UInt64

    private static let registry = Mutexed<(monitors: [String: WeakMonitor], next: UInt64)>(([:], 0))

    private init(path: String, generation: UInt64) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "WellKit.ChangeMonitor"
        queue = try DatabaseQueue(path: path, configuration: configuration)
        self.generation = generation
    }

    /// The monitor of `path`, shared while any controller holds it.
    static func shared(path: String) throws -> ChangeMonitor {
        try registry.withLock { state in
            if let monitor = state.monitors[path]?.monitor { return monitor }
            state.next += 1
            let monitor = try ChangeMonitor(path: path, generation: state.next)
            state.monitors[path] = WeakMonitor(monitor: monitor)
            return monitor
        }
    }

    /// `PRAGMA data_version`: it changes when another connection commits to the file.
    func version() throws -> Int64 {
        try queue.inDatabase { try Int64.fetchOne($0, sql: "PRAGMA data_version") ?? 0 }
    }
}

private struct WeakMonitor {
    weak var monitor: ChangeMonitor?
}

/// Snapshots shared by name between controllers of this process, like Core Data's section cache.
enum NamedSnapshots {
    struct Entry {
        var store: String, request: WellFetchRequest, sectionKey: WellField?, monitor: UInt64, version: Int64
        var snapshot: ResultsSnapshot
    }

    private static let entries = Mutexed<[String: Entry]>([:])

    static func lookup(_ name: String, store: String, request: WellFetchRequest, sectionKey: WellField?,
                       monitor: UInt64, version: Int64) -> ResultsSnapshot? {
        entries.withLock { entries in
            guard let entry = entries[name], entry.store == store, entry.request == request, entry.sectionKey == sectionKey,
                  entry.monitor == monitor, entry.version == version else { return nil }
            return entry.snapshot
        }
    }

    static func save(_ name: String, store: String, request: WellFetchRequest, sectionKey: WellField?,
                     monitor: UInt64, version: Int64, snapshot: ResultsSnapshot) {
        entries.withLock { $0[name] = Entry(store: store, request: request, sectionKey: sectionKey, monitor: monitor, version: version, snapshot: snapshot) }
    }

    static func remove(_ name: String) { entries.withLock { $0[name] = nil } }
    static func removeAll() { entries.withLock { $0.removeAll() } }
}

/// A value guarded by a lock.
final class Mutexed<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
