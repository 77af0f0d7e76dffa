import CProj

/// PROJ's functions, from libproj loaded on first use (see ``SystemLibrary``).
///
/// Call them as `libproj.proj_create(...)`: each field has the name and type of the PROJ function.
/// Call `try loadedProj.get()` first, at an entry point (`ProjContext.init()`). A global `let`, read
/// once on first use: a call per point or per row (`proj_trans`, `geod_inverse`) is one load, not a
/// check of the load's result each time.
let libproj: WKProj = SystemLibrary.loaded(loadedProj)

/// libproj, or the error that says what to install.
let loadedProj: Result<WKProj, StoreError> = SystemLibrary.load(
    "PROJ", names: ["libproj.so", "libproj.so.25", "libproj.dylib"], package: "libproj-dev", into: WKProj(),
    resolve: { wk_proj_resolve($0, $1) })
