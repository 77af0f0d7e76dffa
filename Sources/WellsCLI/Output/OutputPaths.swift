import ArgumentParser
import Foundation
import Glibc
import WellKit

/// Keeps a command from writing over a file it was asked to read, or over the store it writes.
///
/// Two paths are the same file when they name the same device and inode (as `cp` checks), or,
/// when one does not exist yet, when their directories resolve to the same place and their names
/// match. So `--rejects wells.sqlite`, `--rejects ./wells.sqlite-wal`, a symlink to the input or a
/// hard link to it are all caught.
enum OutputPaths {
    /// Whether `a` and `b` name the same file (existing or to be created).
    static func same(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0 && stat(b, &sb) == 0 { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        return resolved(a) == resolved(b)
    }

    /// The absolute path with its directory's symlinks resolved; the last component as given.
    static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var real = directory
        if let resolved = realpath(directory, nil) {
            real = String(cString: resolved)
            free(resolved)
        }
        return (real as NSString).appendingPathComponent(url.lastPathComponent)
    }

    /// The store's file and the files SQLite keeps beside it.
    static func storeFiles(_ store: String) -> [String] {
        ["", "-wal", "-shm", "-journal"].map { store + $0 }
    }

    /// Throws a usage error when `output` (the value of `option`) is one of `protected`.
    static func refuse(_ output: String, option: String, protected: [(path: String, what: String)]) throws {
        for (path, what) in protected where same(output, path) {
            throw ValidationError("\(option) \(output) is \(what); it would be overwritten. Choose another file")
        }
    }

    /// Refuses to replace `output` when it exists and is not a file of the kind this option writes
    /// (`recognized` reads its first line), unless `force`; never replaces what is not a regular file
    /// (a device such as /dev/full, a FIFO, a directory), which a write beside it and a rename would destroy.
    static func refuseToReplace(_ output: String, option: String, force: Bool, kind: String,
                                firstLine expected: @autoclosure () throws -> String) throws {
        try refuseToReplace(output, option: option, force: force, kind: kind, expectation: "its first line is not \(try expected())") { path in
            let expected = try expected()   // only for a file that exists: it may cost a probe
            let start = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: expected.utf8.count + 2)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            return start.hasPrefix(expected)
        }
    }

    /// ``refuseToReplace(_:option:force:kind:firstLine:)`` for a file whose kind `recognized` tells from its path, such as a GeoPackage.
    static func refuseToReplace(_ output: String, option: String, force: Bool, kind: String,
                                recognized: (String) throws -> Bool) throws {
        try refuseToReplace(output, option: option, force: force, kind: kind, expectation: nil, recognized: recognized)
    }

    private static func refuseToReplace(_ output: String, option: String, force: Bool, kind: String,
                                        expectation: @autoclosure () throws -> String?, recognized: (String) throws -> Bool) throws {
        var info = stat()
        guard lstat(output, &info) == 0 else { return }   // a new file
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK {
            // A symlink is replaced by the rename, not followed: say so, as for any other file.
            guard force else { throw ValidationError("\(option) \(output) is a symbolic link; it would be replaced by a file. Choose another file, or pass --force") }
            return
        }
        guard type == S_IFREG else {
            throw ValidationError("\(option) \(output) is not a regular file (a device, a pipe or a directory); choose a file")
        }
        guard !force else { return }
        guard try recognized(output) else {
            let why = try expectation().map { " (\($0))" } ?? ""
            throw ValidationError("\(option) \(output) exists and is not \(kind)\(why); it would be overwritten. "
                                  + "Choose another file, or pass --force")
        }
    }

    /// Removes a store this command created and left without any load (after a failure), so a
    /// failed first load leaves nothing behind; a store that existed, or that holds a load, is kept.
    static func removeIfCreatedEmpty(_ store: String, existedBefore: Bool) {
        guard !existedBefore, FileManager.default.fileExists(atPath: store) else { return }
        let empty = (try? !WellStore(path: store, mode: .readOnly).hasLoads()) ?? false
        if empty { for file in storeFiles(store) { unlink(file) } }
    }
}
