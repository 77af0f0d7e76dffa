#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens the C libraries WellKit calls through function tables (`WKProj`, `WKSpatiaLite`) on first use.
///
/// Linking them would make every process that uses WellKit load SpatiaLite, PROJ, GEOS and about
/// 50 other libraries before `main`: measured here, 16 ms for a C program that only links
/// libspatialite, against 1 ms without it. Loading on first use keeps that cost to the commands
/// that need the libraries: `wells --help`, `bbox`, `find` and `show` never pay it.
enum SystemLibrary {
    /// `dlopen`s the first of `names` that loads and fills its function table with `resolve`.
    ///
    /// A missing library is an installation problem, not an input error, so this stops the
    /// process with what to install.
    static func load<API>(_ library: String, names: [String], package: String, into api: API,
                          resolve: (UnsafeMutableRawPointer, UnsafeMutablePointer<API>) -> UnsafePointer<CChar>?) -> API {
        var api = api
        var errors: [String] = []
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL) else {
                errors.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            if let missing = resolve(handle, &api) {
                fatalError("WellKit: \(name) has no function \(String(cString: missing)); install the \(library) that WellKit was built against (\(package))")
            }
            return api
        }
        fatalError("WellKit needs \(library) and could not load it (\(errors.joined(separator: "; "))); install it with `sudo apt-get install \(package)` or `bash .ci/setup`")
    }
}
