#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens the C libraries WellKit calls through function tables (`WKProj`, `WKSpatiaLite`) on first use.
///
/// Linking them would make every process that uses WellKit load SpatiaLite, PROJ, GEOS and dozens
/// of other libraries before `main`, most of a small command's start-up (Benchmarks/README.md's
/// "Start-up"). Loading on first use keeps that cost to the commands
/// that need the libraries: `wells --help`, `bbox`, `find` and `show` never pay it.
enum SystemLibrary {
    /// `dlopen`s the first of `names` that loads and fills its function table with `resolve`.
    ///
    /// A missing library is an installation problem: the result is a ``StoreError`` with code
    /// ``StoreError/Code/missingLibrary`` naming the library and the Debian package to install,
    /// which the entry points (``SpatiaLite/initialize(_:)``, `ProjContext.init()`) throw.
    static func load<API>(_ library: String, names: [String], package: String, into api: API,
                          resolve: (UnsafeMutableRawPointer, UnsafeMutablePointer<API>) -> UnsafePointer<CChar>?) -> Result<API, StoreError> {
        var api = api
        var errors: [String] = []
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL) else {
                errors.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            if let missing = resolve(handle, &api) {
                return .failure(StoreError(.missingLibrary, "\(name) has no function \(String(cString: missing)), so it is not the \(library) that WellKit was built against",
                                           remedy: .installPackage(package), library: library))
            }
            return .success(api)
        }
        return .failure(StoreError(.missingLibrary, "WellKit needs \(library) and could not load it (\(errors.joined(separator: "; ")))",
                                   remedy: .installPackage(package), library: library))
    }

    /// The function table of a library whose entry point has checked that it loaded.
    ///
    /// Only reached after `try result.get()` succeeded at an entry point, so a failure here is a
    /// WellKit bug: a path that calls the library without going through its entry point.
    static func loaded<API>(_ result: Result<API, StoreError>) -> API {
        switch result {
        case .success(let api): return api
        case .failure(let error): preconditionFailure("SystemLibrary: called before its entry point checked it loaded: \(error)")
        }
    }
}
