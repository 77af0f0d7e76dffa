import Foundation

/// What a load holds in memory, and whether the machine has it, checked before the work starts.
///
/// A load maps its file, which the kernel can drop and read again (clean page cache); a file of
/// ``MappedFile/releaseThreshold`` bytes or more gives its pages back as it is read. Besides it,
/// until the commit, a load holds a few dozen bytes per well: its packed record (``RecordList``),
/// its place in the Hilbert order, its share of duplicate settling (before the write), and
/// SQLite's page cache (``BulkWriter/writeCacheSize``). ``bytesPerWell`` is what a national load
/// holds so, its peak less the file's resident pages and the fixed costs, with room to spare
/// (`wells-bench scale`, Benchmarks/README.md's "Scaling"). Beyond what the machine has free, the
/// kernel would kill the load part-way; it is refused before it reads the file instead.
package enum LoadMemory {
    /// Bytes per well a load needs besides the mapped file, with room over what a national load holds.
    static let bytesPerWell = 100

    /// Whether a load keeps a file of `bytes` resident while it runs: a file under
    /// ``MappedFile/releaseThreshold``, which is mapped and read in up front.
    package static func keepsResident(fileBytes bytes: Int) -> Bool { bytes < MappedFile.releaseThreshold }

    /// The page cache, the batches and the process's own fixed costs.
    static let fixedBytes = 128 << 20

    /// The message when `wells` wells need more than `available` bytes, or nil when they fit.
    static func shortfall(wells: Int, available: Int?) -> String? {
        guard let available else { return nil }
        let (product, overflow) = wells.multipliedReportingOverflow(by: bytesPerWell)
        let needed = overflow ? Int.max : product.addingReportingOverflow(fixedBytes).partialValue
        guard needed > available else { return nil }
        return "loading this file needs about \(megabytes(needed)) MB of memory besides the file itself "
            + "(about \(grouped(wells)) wells at \(bytesPerWell) bytes each), and \(megabytes(available)) MB is available; "
            + "nothing was changed; free memory, or split the file and load the parts one after another (each load adds its wells to the store)"
    }

    /// The bytes this process can still take: the kernel's `MemAvailable`, or less under a cgroup's
    /// `memory.max` or an address-space limit. Nil when none can be read.
    static func available() -> Int? {
        var limits: [Int] = []
        if let meminfo = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
           let line = meminfo.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
           let kib = Int(line.split(separator: " ").dropFirst().first ?? "") {
            limits.append(kib * 1024)
        }
        // Under a cgroup's limit, what its processes hold (not its page cache, which the kernel reclaims) counts.
        if let max = number(at: "/sys/fs/cgroup/memory.max"),
           let stat = try? String(contentsOfFile: "/sys/fs/cgroup/memory.stat", encoding: .utf8),
           let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("anon ") }), let anon = Int(line.dropFirst(5)) {
            limits.append(Swift.max(0, max - anon))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int.max),
           let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
           let pages = Int(statm.split(separator: " ").first ?? "") {
            limits.append(Swift.max(0, Int(clamping: limit.rlim_cur) - pages * sysconf(Int32(_SC_PAGESIZE))))
        }
        return limits.min()
    }

    private static func number(at path: String) -> Int? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private static func megabytes(_ bytes: Int) -> String { grouped(bytes / 1_048_576) }
}
