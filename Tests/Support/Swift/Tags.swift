import Testing

/// The lanes of the tests. `swift test` runs everything; the fast lane leaves out what needs a
/// database server, an HTTP server, a browser or seconds of work. Swift 6.3's `swift test` cannot
/// skip by tag yet (ST-0025's `--skip tag:slow`), so the README's fast-lane command names the
/// tagged tests, and `TestLanesTests` checks that it names every one.
extension Tag {
    /// Needs a PostgreSQL/PostGIS server: the tests start a throwaway cluster.
    @Tag package static var postgres: Self
    /// Drives headless Chromium.
    @Tag package static var browser: Self
    /// Starts `wells serve` as a child process and talks HTTP to it.
    @Tag package static var server: Self
    /// Loads hundreds of thousands of wells, or runs whole processes for seconds.
    @Tag package static var slow: Self
}
