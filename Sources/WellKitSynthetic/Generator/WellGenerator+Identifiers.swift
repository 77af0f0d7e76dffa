extension WellGenerator {
    // MARK: - DLSLocation

    /// An approximate Alberta Dominion Land Survey location: legal subdivision, section, township,
    /// range and meridian (e.g. 06-12-034-05W4).
    struct DLSLocation {
        let lsd: Int
        let section: Int
        let township: Int
        let range: Int
        let meridian: Int

        static let maxTownship = 126
        static let maxRange = 30
        /// Number of distinct locations: 3 meridians x 30 ranges x 126 townships x 36 sections x 16 LSDs.
        static let cellCount = 3 * maxRange * maxTownship * 36 * 16

        private static let townshipDegrees = 9.656 / 111.32 // ~6 miles of latitude

        /// The location of a point inside lat 49..60, lon -120..-110 (same grid as gen_wells.py).
        init(latitude: Double, longitude: Double) {
            let west = -longitude
            let (meridianLongitude, meridian) = west >= 118 ? (118.0, 6) : (west >= 114 ? (114.0, 5) : (110.0, 4))
            let rangeDegrees = 9.656 / (111.32 * Math.cos(latitude * Math.pi / 180))
            let townshipF = max(0, (latitude - 49) / DLSLocation.townshipDegrees)
            let rangeF = max(0, (west - meridianLongitude) / rangeDegrees)
            // position inside the township, 0..6 from the SE corner (east->west, south->north)
            let fx = (rangeF - rangeF.rounded(.down)) * 6
            let fy = (townshipF - townshipF.rounded(.down)) * 6
            let column = min(Int(fx), 5)
            let row = min(Int(fy), 5)
            let lx = min(Int((fx - Double(column)) * 4), 3)
            let ly = min(Int((fy - Double(row)) * 4), 3)
            lsd = ly * 4 + (ly % 2 == 0 ? lx : 3 - lx) + 1
            section = row * 6 + (row % 2 == 0 ? column : 5 - column) + 1
            township = min(Int(townshipF) + 1, DLSLocation.maxTownship)
            range = min(Int(rangeF) + 1, DLSLocation.maxRange)
            self.meridian = meridian
        }

        /// A dense index in `0..<cellCount`.
        var cellIndex: Int {
            let rangeIndex = (meridian - 4) * DLSLocation.maxRange + range - 1
            return ((rangeIndex * DLSLocation.maxTownship + township - 1) * 36 + section - 1) * 16 + lsd - 1
        }
    }

    // MARK: - UWIAllocator

    /// Hands out unique UWIs per DLS location without remembering the UWIs themselves.
    ///
    /// The k-th well at a location gets location exception `LE[k % 69]` and event sequence
    /// `00` for k < 69, then `02`, `03`, ... `99`; so 6,831 wells fit per location. One `UInt16`
    /// counter per location (about 13 MB) keeps memory independent of the row count.
    struct UWIAllocator {
        private var counters: [UInt16]
        static let perEvent = Catalog.locationExceptions.count
        static let capacity = perEvent * 99

        init() {
            counters = [UInt16](repeating: 0, count: DLSLocation.cellCount)
        }

        /// Reserves the next UWI at `location` and returns its `(LE index, event sequence)`,
        /// or `nil` when the location is full.
        mutating func allocate(at location: DLSLocation) -> (exception: Int, event: Int)? {
            let index = location.cellIndex
            let k = Int(counters[index])
            guard k < UWIAllocator.capacity else { return nil }
            counters[index] = UInt16(k + 1)
            let sequence = k / UWIAllocator.perEvent
            return (k % UWIAllocator.perEvent, sequence == 0 ? 0 : sequence + 1)
        }

        /// Writes `1LE/LS-SC-TWP-RGWM/ES` (e.g. `100/06-12-034-05W4/00`) as a field of `out`.
        static func appendUWI(_ location: DLSLocation, exception: Int, event: Int, to out: inout CSVOutput) {
            out.beginField()
            out.append(byte: UInt8(ascii: "1"))
            out.appendRaw(Catalog.locationExceptions[exception])
            out.append(byte: UInt8(ascii: "/"))
            out.append(decimal: location.lsd, width: 2)
            out.append(byte: ASCII.minus)
            out.append(decimal: location.section, width: 2)
            out.append(byte: ASCII.minus)
            out.append(decimal: location.township, width: 3)
            out.append(byte: ASCII.minus)
            out.append(decimal: location.range, width: 2)
            out.append(byte: UInt8(ascii: "W"))
            out.append(decimal: location.meridian)
            out.append(byte: UInt8(ascii: "/"))
            out.append(decimal: event, width: 2)
        }
    }

    // MARK: - LicencePermutation

    /// A keyed bijection of `0..<domain` (4-round Feistel network with cycle walking).
    ///
    /// Row `i` gets licence number `permute(i) + 1`, so numbers are unique without remembering them.
    struct LicencePermutation {
        let domain: UInt64
        private let halfBits: UInt64
        private let halfMask: UInt64
        private let keys: [UInt64]

        init(domain: Int, seed: UInt64) {
            self.domain = UInt64(domain)
            var bits: UInt64 = 2
            while (UInt64(1) << bits) < self.domain { bits += 2 }
            halfBits = bits / 2
            halfMask = (UInt64(1) << halfBits) - 1
            var state = seed ^ 0x6C69_6365_6E63_6521 // "licence!"
            keys = (0..<4).map { _ in Random.splitMix64(&state) }
        }

        /// The image of `value`, which must be in `0..<domain`.
        func permute(_ value: Int) -> Int {
            var x = UInt64(value)
            repeat { x = encrypt(x) } while x >= domain
            return Int(x)
        }

        private func encrypt(_ value: UInt64) -> UInt64 {
            var left = value >> halfBits
            var right = value & halfMask
            for key in keys {
                (left, right) = (right, left ^ (Random.mix64(right ^ key) & halfMask))
            }
            return (left << halfBits) | right
        }
    }
}
