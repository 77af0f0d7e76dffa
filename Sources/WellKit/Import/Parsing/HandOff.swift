/// A result handed from the thread that makes it to the one that waits for it: set before the
/// thread's `DispatchGroup` work ends, read after `DispatchGroup.wait()` (or after
/// `DispatchQueue.concurrentPerform` returns), which orders the two (the second half and the digest
/// of ``PartitionedParse``, the halves of the place check).
// @unchecked Sendable: the group's wait is the synchronization; nothing reads it before.
final class HandOff<Value>: @unchecked Sendable {
    var value: Value?
}
