import CProj

/// PROJ's functions, from libproj loaded on first use (see ``SystemLibrary``).
///
/// Call them as `libproj.proj_create(...)`: each field has the name and type of the PROJ function.
/// Call `try loadedProj.get()` first, at an entry point (`ProjContext.init()`).
var libproj: WKProj { SystemLibrary.loaded(loadedProj) }

/// libproj, or the error that says what to install.
let loadedProj: Result<WKProj, StoreError> = SystemLibrary.load(
    "PROJ", names: ["libproj.so", "libproj.so.25", "libproj.dylib"], package: "libproj-dev", into: WKProj(),
    resolve: { wk_proj_resolve($0, $1) })
