import WellKit
import WellKitSynthetic
import WellsCLI
import CMemoryProbe
import Foundation

/// Reads the process's heap, allocation count and resident memory, for the benchmarks.
///
/// - Heap in use is glibc's `mallinfo2()` (`uordblks + hblkhd`): bytes handed out by malloc
///   and not yet freed. The difference before and after a fetch, while its result is still
///   held, is the memory that result retains.
/// - Allocations are counted only inside the `wells` executable, which replaces malloc with a
///   counting forwarder (`CAllocationCounter`); elsewhere ``allocations`` is nil.
/// - Resident memory comes from `/proc/self/status` (`VmRSS`, and `VmHWM` for the peak, which
///   ``resetPeakResident()`` resets through `/proc/self/clear_refs`).
public enum MemoryProbe {
    public static var heapBytesInUse: Int { Int(wk_heap_bytes_in_use()) }

    public static var allocations: Int? {
        let count = wk_allocations_counted()
        return count < 0 ? nil : count
    }

    public static func countAllocations(_ enabled: Bool) { wk_count_allocations(enabled ? 1 : 0) }

    public static var residentBytes: Int { status("VmRSS:") }
    public static var peakResidentBytes: Int { status("VmHWM:") }

    /// Resets the peak resident size to the current one (Linux ≥ 4.0).
    public static func resetPeakResident() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func status(_ key: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
}

/// Percentiles of a sample.
public enum Statistics {
    /// The value at quantile `q` (0…1) by nearest rank; 0 for an empty sample.
    public static func percentile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    public static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }
}
