import CThreadSanitizer

/// Tells the thread sanitizer about a lock it cannot see: Swift's `Mutex` on Linux waits with the
/// futex system call, which the sanitizer does not intercept, so a `Mutex` taken by two threads in
/// turn is reported as a race (a two-thread loop over a `Mutex<Int>`, Swift 6.3.1). Inside the
/// lock, ``holding(_:_:)`` marks the acquire and the release on the lock's owner; without the
/// sanitizer it costs a test of a null pointer.
enum ThreadSanitizer {
    static func holding<T, E: Error>(_ owner: AnyObject, _ body: () throws(E) -> T) throws(E) -> T {
        let address = Unmanaged.passUnretained(owner).toOpaque()
        wellkit_tsan_acquire(address)
        defer { wellkit_tsan_release(address) }
        return try body()
    }
}
