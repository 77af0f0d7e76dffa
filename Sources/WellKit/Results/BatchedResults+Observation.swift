import Dispatch
import Foundation
import GRDB
import Synchronization

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
    /// whenever another connection commits: this process's writer (a load, or GRDB through the store's pool) as
    /// much as another process's `wells load`. An unchanged value costs no query over wells.
    /// (`total_changes()` would miss other processes, and the pool's readers are chosen at
    /// random, so their `data_version` values cannot be compared.)
    ///
    /// - Parameter isolation: where the caller runs, as for ``refresh(isolation:)``.
    public func checkForChanges(isolation: isolated (any Actor)? = #isolation) throws -> ResultsDiff? {
        let onMainActor = Self.isMainActor(isolation)
        let diff = try withLock { try checkForChanges(locked: &$0, onMainActor: onMainActor) }
        deliverOutbox(onMainActor: onMainActor)
        return diff
    }

    /// ``checkForChanges(isolation:)`` with the lock held; a diff goes to the outbox, with `onChange`.
    func checkForChanges(locked state: inout State, onChange: (@Sendable (ResultsDiff) -> Void)? = nil,
                         onMainActor: Bool) throws -> ResultsDiff? {
        guard state.current != nil, let baselineVersion = state.baselineVersion else {
            return try refresh(locked: &state, onMainActor: onMainActor)
        }
        guard try changeMonitor(&state).version() != baselineVersion else { return nil }
        return try refresh(locked: &state, onChange: onChange, onMainActor: onMainActor)
    }

    /// Watches the store and tells the ``delegate`` (on the main actor), `onChange` and the
    /// consumers of ``changes`` of each non-empty change, until ``stopObserving()``.
    ///
    /// For example:
    ///
    /// ```swift
    /// results.delegate = model            // a @MainActor BatchedResultsDelegate
    /// results.startObserving()
    /// results.startObserving { diff in print(diff.rowChanges.count, "changes") }
    /// ```
    ///
    /// The consumers of ``changes`` need no call: the first starts an observation when none runs.
    ///
    /// Writes of this process (a load, or GRDB through the store's pool) are seen at once: a GRDB
    /// `DatabaseRegionObservation` of `pins` and `details` triggers a check after each commit.
    /// Other processes' writes are seen by ``checkForChanges(isolation:)`` every `interval`: SQLite signals no
    /// connection when another process commits (the change monitor's `PRAGMA data_version` can only
    /// be read), and a PostgreSQL hot standby delivers no `NOTIFY`, so the token is polled, by a
    /// dispatch timer that holds no thread between checks. On a PostgreSQL primary the `NOTIFY` of
    /// every connection's commit triggers a check at once, as this process's writes do. The checks run
    /// one at a time on a dispatch queue of the observation's own (never on Swift's cooperative
    /// pool, nor on the main thread, since they block on SQLite); `onChange` runs there after the
    /// controller's lock is released, so it may call back into the controller. With a delegate,
    /// the new results wait for the main actor, which takes them in and tells the delegate, then
    /// `onChange`.
    public func startObserving(interval: Duration = .milliseconds(250),
                               onError: (@Sendable (any Error) -> Void)? = nil,
                               onChange: @escaping @Sendable (ResultsDiff) -> Void) {
        observe(interval: interval, onError: onError, onChange: onChange, forConsumers: false)
    }

    /// Watches the store for the ``delegate`` and the consumers of ``changes``, until
    /// ``stopObserving()``: ``startObserving(interval:onError:onChange:)`` with no `onChange`.
    ///
    /// (A separate method rather than an optional `onChange`: with no required closure left, a
    /// trailing closure would be taken for `onError`.)
    public func startObserving(interval: Duration = .milliseconds(250)) {
        observe(interval: interval, forConsumers: false)
    }

    /// ``startObserving(interval:onError:onChange:)``, saying whether a consumer of ``changes`` starts it.
    func observe(interval: Duration = .milliseconds(250), onError: (@Sendable (any Error) -> Void)? = nil,
                 onChange: (@Sendable (ResultsDiff) -> Void)? = nil, forConsumers: Bool) {
        let token = withLock { state in
            state.observation?.stop()
            state.observation = nil
            state.observationGeneration += 1
            return state.observationGeneration
        }
        let check: @Sendable (BatchedResults) -> Void = { results in
            do {
                try results.withLock { state in
                    // A check queued before stopObserving() or a newer startObserving() delivers nothing.
                    guard state.observation != nil, state.observationGeneration == token else { return }
                    _ = try results.checkForChanges(locked: &state, onChange: onChange, onMainActor: false)
                }
            } catch {
                onError?(error)
            }
            results.deliverOutbox(onMainActor: false)
        }
        let queue = DispatchQueue(label: "WellKit.BatchedResults.observation")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let period = DispatchTimeInterval.nanoseconds(Int(clamping: interval.components.seconds * 1_000_000_000
            + interval.components.attoseconds / 1_000_000_000))
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            check(self)
        }
        let cancel: @Sendable () -> Void
        do {
            cancel = try store.engine.observeCommits(onError: { onError?($0) }) { [weak self] in
                guard let self else { return }
                queue.async { check(self) }
            }
        } catch {
            // The polling still sees every commit, later.
            onError?(error)
            cancel = {}
        }
        let observation = Observation(timer: PollTimer(timer), cancel: cancel)
        withLock { state in
            state.observation = observation
            state.observationForConsumers = forConsumers
        }
        timer.resume()
    }

    /// Stops the observation ``startObserving(interval:onError:onChange:)`` started, and ends the
    /// sequences of ``changes``: their consumers still get the diffs delivered before, then `nil`.
    public func stopObserving() {
        withLock { state in
            state.observation?.stop()
            state.observation = nil
            state.observationForConsumers = false
        }
        finishChanges()
    }

    /// Forgets the snapshot shared under `name`, or all shared snapshots when nil.
    public static func deleteCache(named name: String?) {
        if let name { NamedSnapshots.remove(name) } else { NamedSnapshots.removeAll() }
    }

    /// The shared `data_version` connection for the store file, opened on first use.
    func changeMonitor(_ state: inout State) throws -> ChangeMonitor {
        if let monitor = state.monitor { return monitor }
        let opened = try store.engine.changeMonitor()
        state.monitor = opened
        return opened
    }
}

/// A running observation: the polling timer and the engine's commit observation.
struct Observation: Sendable {
    let timer: PollTimer
    let cancel: @Sendable () -> Void

    func stop() {
        timer.cancel()
        cancel()
    }
}

/// The dispatch timer that polls `PRAGMA data_version`.
///
/// `@unchecked Sendable` because libdispatch sources may be cancelled from any thread; the
/// timer is only resumed once, by `startObserving`, before it is shared.
final class PollTimer: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    init(_ source: any DispatchSourceTimer) { self.source = source }

    func cancel() { source.cancel() }
}

/// The reader of a store's change token, one per store per process: for a file, a read-only
/// connection that only reads `PRAGMA data_version`; for PostgreSQL, the engine's counter.
package final class ChangeMonitor: Sendable {
    private let read: @Sendable () throws -> Int64
    /// Distinguishes monitors, whose versions are not comparable with each other's.
    let generation: UInt64

    private static let registry = Mutex<(monitors: [String: WeakMonitor], next: UInt64)>(([:], 0))

    private init(generation: UInt64, read: @escaping @Sendable () throws -> Int64) {
        self.read = read
        self.generation = generation
    }

    /// The monitor of the store file at `path`, shared while any controller holds it.
    static func shared(path: String) throws -> ChangeMonitor {
        try shared(key: path) {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.label = "WellKit.ChangeMonitor"
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            return { try queue.inDatabase { try Int64.fetchOne($0, sql: "PRAGMA data_version") ?? 0 } }
        }
    }

    /// The monitor under `key`, made by `reader` on first use and shared while any holder keeps it.
    package static func shared(key: String, reader: () throws -> @Sendable () throws -> Int64) throws -> ChangeMonitor {
        try registry.withLock { state in
            if let monitor = state.monitors[key]?.monitor { return monitor }
            state.next += 1
            let monitor = ChangeMonitor(generation: state.next, read: try reader())
            state.monitors[key] = WeakMonitor(monitor: monitor)
            return monitor
        }
    }

    /// The token: it changes when another connection commits to the store.
    func version() throws -> Int64 {
        try read()
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

    private static let entries = Mutex<[String: Entry]>([:])

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
