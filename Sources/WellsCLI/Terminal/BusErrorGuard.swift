import Glibc

/// Turns the SIGBUS of a mapped input that shrinks during a load into a clear message and exit 65.
///
/// `wells load` maps its input (see `MappedFile`). If another program truncates the file while it
/// is read, touching the lost pages raises SIGBUS, which would kill the process with a crash
/// report. The load's transaction is rolled back like that of any killed load, so a store that
/// existed is unchanged; a store the load created goes, with its journal and any spool. Nothing
/// but writing a byte is safe in a signal handler, so the handler hands the signal to
/// ``InterruptGuard``'s thread, which does that and exits, and stops the thread that touched the
/// lost page (returning would only raise SIGBUS again).
enum BusErrorGuard {
    /// The input, as the user named it.
    nonisolated(unsafe) private(set) static var file = ""

    /// Installs the handler for a load of `file`.
    static func arm(file: String) {
        self.file = file
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            guard InterruptGuard.handOver(SIGBUS) else { _exit(65) }
            while true { pause() }
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
    }
}
