import CProj

/// PROJ's functions, from libproj loaded on first use (see ``SystemLibrary``).
///
/// Call them as `libproj.proj_create(...)`: each field has the name and type of the PROJ function.
let libproj: WKProj = SystemLibrary.load(
    "PROJ", names: ["libproj.so", "libproj.so.25", "libproj.dylib"], package: "libproj-dev", into: WKProj(),
    resolve: { wk_proj_resolve($0, $1) })
