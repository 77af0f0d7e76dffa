// The one way the tests start a child process (``Command``, ``RunningCommand``), for every test
// target that imports this support.
@_exported import ProcessRunner
