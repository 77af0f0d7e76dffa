import Synchronization

extension BatchedResults {
    /// The changes the controller finds, as an `AsyncSequence` of the diffs its delegate receives.
    ///
    /// For example:
    ///
    /// ```swift
    /// try results.performFetch()
    /// for await diff in results.changes {
    ///     for change in diff.rows(.insert) { print("inserted", change.id, "at", change.newIndexPath!) }
    /// }
    /// ```
    ///
    /// Each iteration (each `makeAsyncIterator()`) is a consumer of its own, as with
    /// `NotificationCenter.notifications(named:)`: every consumer gets every non-empty diff found
    /// after it started, in the order the delegate hears them, whoever found it (the observation
    /// of ``startObserving(interval:onError:onChange:)``, ``refresh(isolation:)`` or ``checkForChanges(isolation:)``).
    /// Iterating observes the store: when no observation runs, the first consumer starts one (as
    /// ``startObserving(interval:onError:onChange:)`` does, with its default interval) and the last
    /// consumer's end stops it; an observation started by `startObserving` is left to its caller.
    /// Diffs wait in the consumer's buffer until it asks for them: none is dropped, since
    /// each one's index paths hold only after the ones before it.
    ///
    /// A consumer's sequence ends when ``stopObserving()`` is called or the controller is
    /// released; cancelling the consuming task ends it too, and frees its buffer.
    public var changes: BatchedResultsChanges<Element> { BatchedResultsChanges(results: self) }

    /// Adds a consumer of ``changes``: its stream receives each diff sent from now on, until
    /// ``finishChanges()`` or the consumer's end.
    func subscribe() -> AsyncStream<ResultsDiff> {
        let (stream, continuation) = AsyncStream.makeStream(of: ResultsDiff.self, bufferingPolicy: .unbounded)
        let (key, start) = withLock { state in
            state.nextConsumer += 1
            state.consumers[state.nextConsumer] = continuation
            return (state.nextConsumer, state.observation == nil)
        }
        continuation.onTermination = { [weak self] _ in
            // The last consumer's end stops the observation the first one started (outside the lock).
            self?.withLock { state -> Observation? in
                state.consumers.removeValue(forKey: key)
                guard state.consumers.isEmpty, state.observationForConsumers else { return nil }
                defer { state.observation = nil; state.observationForConsumers = false }
                return state.observation
            }?.stop()
        }
        if start { observe(forConsumers: true) }
        return stream
    }

    /// Ends every consumer's sequence. Not with the lock held: a sequence's end runs its
    /// `onTermination`, which takes the lock.
    func finishChanges() {
        let consumers = withLock { state in
            defer { state.consumers.removeAll() }
            return Array(state.consumers.values)
        }
        for consumer in consumers { consumer.finish() }
    }
}

/// The diffs a ``BatchedResults`` finds, in the order its delegate hears them; see ``BatchedResults/changes``.
///
/// The sequence holds its controller weakly: it does not keep it alive, and ends when it goes.
public struct BatchedResultsChanges<Object: BatchLoadable>: AsyncSequence, Sendable {
    public typealias Element = ResultsDiff
    public typealias Failure = Never

    weak var results: BatchedResults<Object>?

    public func makeAsyncIterator() -> AsyncIterator {
        guard let results else {
            // Released already: an empty sequence.
            let (stream, continuation) = AsyncStream.makeStream(of: ResultsDiff.self)
            continuation.finish()
            return AsyncIterator(base: stream.makeAsyncIterator())
        }
        return AsyncIterator(base: results.subscribe().makeAsyncIterator())
    }

    /// One consumer's position in the diffs.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<ResultsDiff>.Iterator

        public mutating func next() async -> ResultsDiff? {
            await base.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> ResultsDiff? {
            await base.next(isolation: actor)
        }
    }
}
