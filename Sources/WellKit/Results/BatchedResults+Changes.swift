import Synchronization

extension BatchedResults {
    /// The changes the controller finds, as an `AsyncSequence` of the diffs its delegate receives.
    ///
    /// For example:
    ///
    /// ```swift
    /// try results.performFetch()
    /// results.startObserving { _ in }
    /// for await diff in results.changes {
    ///     for change in diff.rows(.insert) { print("inserted", change.id, "at", change.newIndexPath!) }
    /// }
    /// ```
    ///
    /// Each iteration (each `makeAsyncIterator()`) is a consumer of its own, as with
    /// `NotificationCenter.notifications(named:)`: every consumer gets every non-empty diff found
    /// after it started, in the order the delegate hears them, whoever found it (the observation
    /// of ``startObserving(interval:onError:onChange:)``, ``refresh()`` or ``checkForChanges()``).
    /// Iterating does not look for changes by itself: start observing for the store's commits to
    /// arrive. Diffs wait in the consumer's buffer until it asks for them: none is dropped, since
    /// each one's index paths hold only after the ones before it.
    ///
    /// A consumer's sequence ends when ``stopObserving()`` is called or the controller is
    /// released; cancelling the consuming task ends it too, and frees its buffer.
    public var changes: BatchedResultsChanges<Element> { BatchedResultsChanges(results: self) }

    /// Adds a consumer of ``changes``: its stream receives each diff sent from now on, until
    /// ``finishChanges()`` or the consumer's end.
    func subscribe() -> AsyncStream<ResultsDiff> {
        let (stream, continuation) = AsyncStream.makeStream(of: ResultsDiff.self, bufferingPolicy: .unbounded)
        let key = withLock { state in
            state.nextConsumer += 1
            state.consumers[state.nextConsumer] = continuation
            return state.nextConsumer
        }
        continuation.onTermination = { [weak self] _ in
            self?.withLock { _ = $0.consumers.removeValue(forKey: key) }
        }
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
