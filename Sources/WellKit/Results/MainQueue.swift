import Dispatch

/// Whether code runs on the main dispatch queue, where the main actor's jobs run.
///
/// Not `Thread.isMainThread`: once a process calls `dispatchMain()` (as `swift test` does), the main
/// thread exits and libdispatch drains the main queue on a worker thread, so main-actor code runs
/// where `Thread.isMainThread` is false (CI's run of the controller's tests showed it). The main
/// queue carries a specific value of WellKit's own; `DispatchQueue.getSpecific` finds it on the
/// main thread and on any thread draining the main queue.
enum MainQueue {
    nonisolated(unsafe) private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()

    static var isCurrent: Bool {
        _ = marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}
