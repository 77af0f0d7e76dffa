import PostgresNIO
import WellKit

// How a store's changes are seen: the change token a trigger advances, and `LISTEN` for its `NOTIFY`.

extension PostgresEngine {
    /// The counter that the trigger on pins and details advances with every committed statement
    /// that changes them, by any connection; a standby replays it with the rows.
    func changeToken() throws -> Int64 {
        try bridge.wait { try await all("SELECT counter FROM wellkit_changes WHERE id = 1") { try $0.int64() }.first ?? 0 }
    }

    func changeMonitor() throws -> ChangeMonitor {
        try ChangeMonitor.shared(key: location.description) { [self] in { [self] in try changeToken() } }
    }

    /// `LISTEN wellkit_changes` on a connection leased from the pool for as long as it listens:
    /// the trigger's `NOTIFY` arrives after each commit to pins or details by any connection.
    /// Returns once the server listens. (A hot standby delivers no notifications; the batched
    /// results' polling sees its changes.)
    func observeCommits(onError: @escaping @Sendable (any Error) -> Void, _ onCommit: @escaping @Sendable () -> Void) throws -> @Sendable () -> Void {
        let (started, listening) = AsyncStream<Result<Void, any Error>>.makeStream()
        let location = location, client = pool.client
        let stopped = StopFlag()
        let task = Task(executorPreference: bridge) {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: PostgresSchema.channel) { notifications in
                        listening.yield(.success(()))
                        for try await _ in notifications { onCommit() }
                    }
                }
            } catch {
                listening.yield(.failure(error))
                if !stopped.flag.load(ordering: .acquiring) { onError(Self.translate(error, location, during: "listening for changes")) }
            }
        }
        do {
            try bridge.wait {
                for await outcome in started { return try outcome.get() }
                throw CancellationError()
            }
        } catch {
            task.cancel()
            throw Self.translate(error, location, during: "listening for changes")
        }
        return {
            stopped.flag.store(true, ordering: .releasing)
            task.cancel()
        }
    }
}
