import Glibc

/// Turns the SIGBUS of a mapped input that shrinks during a load into a clear message and exit 65.
///
/// `wells load` maps its input (see `MappedFile`). If another program truncates the file while it
/// is read, touching the lost pages raises SIGBUS, which would kill the process with a crash
/// report. The load's transaction is then rolled back like that of any killed load, so the store
/// is unchanged; this handler says so and names the file. It only writes a message prepared in
/// advance and exits: nothing else is safe in a signal handler.
enum BusErrorGuard {
    /// The message, as a C string made before the handler can run.
    nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?

    /// Installs the handler for a load of `file` into `store`.
    static func arm(file: String, store: String) {
        let text = "wells: error: \(file): the file shrank while it was being read (another program truncated or rewrote it); "
            + "the load stopped and \(store) is unchanged; load the file again once it is complete\n"
        let previous = message
        message = strdup(text)
        free(previous)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            if let message = BusErrorGuard.message { _ = write(2, message, strlen(message)) }
            _exit(65)
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
    }
}
