import Foundation
import ZIPFoundation

/// The members of a `.zip` archive that a load reads (delimited text and workbooks), and the one
/// way any member is taken out of an archive: to a temporary file, bounded.
///
/// An archive may claim small sizes and expand without end (a zip bomb), or claim sizes larger than
/// the disk: a member is refused when its stated size exceeds the free space of the temporary
/// folder, and its extraction stops, with an error, as soon as it writes more than it stated or
/// than that space. Nothing is ever held in memory whole.
enum ZipMembers {
    /// The member names a load reads: delimited text (`.csv`, `.tsv`, `.txt`, `.psv`, `.dat`) and
    /// workbooks (`.xlsx`), not folders, `__MACOSX/` resource forks or hidden files.
    static func loadable(_ archive: Archive) -> [Entry] {
        archive.filter { entry in
            guard entry.type == .file else { return false }
            let name = (entry.path as NSString).lastPathComponent.lowercased()
            guard !entry.path.hasPrefix("__MACOSX/"), !name.hasPrefix(".") else { return false }
            return [".csv", ".tsv", ".txt", ".psv", ".dat", ".xlsx"].contains { name.hasSuffix($0) }
        }
        .sorted { $0.path < $1.path }
    }

    /// Opens `path` as a ZIP archive.
    static func open(_ path: String, label: String) throws -> Archive {
        do {
            return try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw ImportError(.notText, "the file starts as a ZIP archive but its directory cannot be read (\(error)); "
                + "it is damaged or cut short: download or export it again", file: label)
        }
    }

    /// Extracts `entry` to a temporary file and calls `body` with its path.
    static func withExtracted<R>(_ entry: Entry, from archive: Archive, label: String, _ body: (String) throws -> R) throws -> R {
        try InputFile.withTemporaryFile(label: label) { path in
            let budget = CSVSpool.freeBytes(atDirectoryOf: path)
            let stated = Int(clamping: entry.uncompressedSize)
            func tooBig(_ what: String) -> ImportError {
                ImportError(.notText, "member \"\(entry.path)\" \(what), more than the \(budget / (1 << 20)) MiB free in "
                    + "\(FileManager.default.temporaryDirectory.path) (a zip bomb?); free space there, set TMPDIR to a larger folder, "
                    + "or extract the member yourself and load it", file: label)
            }
            guard stated <= budget else { throw tooBig("expands to \(stated / (1 << 20)) MiB") }
            guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
                throw ImportError(.cannotOpen, "cannot create a temporary copy in \(FileManager.default.temporaryDirectory.path)", file: label)
            }
            var written = 0
            do {
                defer { try? output.close() }
                _ = try archive.extract(entry, bufferSize: 1 << 16, skipCRC32: false) { chunk in
                    written += chunk.count
                    if written > budget { throw tooBig("expands past its stated size") }
                    if written > stated && entry.isCompressed { throw tooBig("expands past its stated \(stated) bytes") }
                    try output.write(contentsOf: chunk)
                }
            } catch let error as ImportError {
                throw error
            } catch {
                throw ImportError(.notText, "member \"\(entry.path)\" cannot be extracted (\(error)); the archive is damaged: "
                    + "download or export it again", file: label)
            }
            return try body(path)
        }
    }
}
