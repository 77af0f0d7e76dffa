extension AgencyList {
    // MARK: - SourceWell

    /// One clean well of ``WellGenerator``, moved into the conterminous US.
    struct SourceWell {
        /// `well_name`, unquoted.
        var name: [UInt8]
        /// `licensee`, unquoted.
        var licensee: [UInt8]
        /// `status`.
        var status: [UInt8]
        /// Latitude in millionths of a degree, 15° south of the source (34...45 N).
        var latitude: Int
        /// Longitude in millionths of a degree, as in the source (-120...-110).
        var longitude: Int
        /// `spud_date`, if the source has one.
        var spud: (year: Int, month: Int, day: Int)?
        /// `total_depth_m` in tenths of a metre, if the source has one.
        var depthDecimetres: Int?

        /// The total depth in whole feet, if known.
        var depthFeet: Int? {
            depthDecimetres.map { ($0 * 328_084 + 500_000) / 1_000_000 } // 1 dm = 0.328084 ft
        }
    }

    /// The latitude shift from the Alberta-like world into the conterminous US, in millionths of a degree.
    static let latitudeShift = -15_000_000

    // MARK: - SourceWells

    /// Streams the clean rows of ``WellGenerator`` for a seed, read back into ``SourceWell`` values.
    struct SourceWells: ~Copyable {
        private var synthesizer: WellGenerator.RowSynthesizer
        private var out = WellGenerator.CSVOutput(capacity: 4096)

        init(count: Int, seed: UInt64) {
            synthesizer = WellGenerator.RowSynthesizer(count: count, seed: seed)
        }

        /// The next well of the clean file.
        mutating func next() -> SourceWell {
            synthesizer.writeRow(to: &out)
            defer { out.removeAll() }
            let spud = out.rawField(14)
            let depth = out.rawField(16)
            return SourceWell(
                name: SourceWells.unquoted(out.rawField(1)),
                licensee: SourceWells.unquoted(out.rawField(5)),
                status: SourceWells.unquoted(out.rawField(8)),
                latitude: SourceWells.fixedDigits(out.rawField(2)) + AgencyList.latitudeShift,
                longitude: SourceWells.fixedDigits(out.rawField(3)),
                spud: spud.count == 10
                    ? (SourceWells.fixedDigits(spud[0..<4]), SourceWells.fixedDigits(spud[5..<7]), SourceWells.fixedDigits(spud[8..<10]))
                    : nil,
                depthDecimetres: depth.isEmpty ? nil : SourceWells.fixedDigits(depth))
        }

        /// The value of a field as written by RFC 4180: outer quotes dropped, inner ones undoubled.
        static func unquoted(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            guard raw.first == WellGenerator.ASCII.quote, raw.count >= 2 else { return Array(raw) }
            var value: [UInt8] = []
            var position = 1
            while position < raw.count - 1 {
                value.append(raw[position])
                position += raw[position] == WellGenerator.ASCII.quote ? 2 : 1
            }
            return value
        }

        /// The digits of a signed decimal as one integer, ignoring the point: `-114.523456` gives
        /// -114523456 (the generator always writes the same number of decimals).
        static func fixedDigits<C: Collection>(_ text: C) -> Int where C.Element == UInt8 {
            var value = 0
            var negative = false
            for byte in text {
                if byte == WellGenerator.ASCII.minus {
                    negative = true
                } else if byte != WellGenerator.ASCII.dot {
                    value = value * 10 + Int(byte &- WellGenerator.ASCII.zero)
                }
            }
            return negative ? -value : value
        }
    }

    // MARK: - Text

    /// The file being written, as ASCII bytes, with the few number formats the layouts need.
    struct Text {
        private(set) var bytes: [UInt8] = []

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        /// The number of bytes written.
        var count: Int { bytes.count }

        mutating func append(_ string: String) { bytes.append(contentsOf: string.utf8) }
        mutating func append(_ value: [UInt8]) { bytes.append(contentsOf: value) }
        mutating func append(byte: UInt8) { bytes.append(byte) }

        /// Appends a copy of the bytes in `range`, already written.
        mutating func appendCopy(of range: Range<Int>) {
            let copy = Array(bytes[range])
            bytes.append(contentsOf: copy)
        }

        /// Ends a line with LF, or CRLF when `crlf`.
        mutating func endLine(crlf: Bool) {
            if crlf { bytes.append(WellGenerator.ASCII.carriageReturn) }
            bytes.append(WellGenerator.ASCII.newline)
        }

        /// Appends `value` in decimal, zero-padded to at least `width` digits.
        mutating func append(decimal value: Int, width: Int = 1) {
            WellGenerator.Format.append(decimal: value, width: width, to: &bytes)
        }

        /// Appends millionths of a degree as signed decimal degrees with 6 decimals (`-114.523456`).
        mutating func append(microdegrees value: Int) {
            if value < 0 { bytes.append(WellGenerator.ASCII.minus) }
            append(decimal: abs(value) / 1_000_000)
            bytes.append(WellGenerator.ASCII.dot)
            append(decimal: abs(value) % 1_000_000, width: 6)
        }

        /// Appends the magnitude of millionths of a degree as compact DMS, `DDMMSS.s` or `DDMMSS.ss`.
        ///
        /// The seconds are rounded (half up) to `decimals` (1 or 2) places first, in integer
        /// arithmetic, so minutes and seconds carry properly and always stay below 60.
        mutating func append(compactDMS microdegrees: Int, degreeDigits: Int, decimals: Int) {
            let perSecond = decimals == 1 ? 10 : 100
            // units of 1/perSecond arcsecond: micro * 3600 * perSecond / 1e6
            let units = (abs(microdegrees) * 36 * perSecond + 5_000) / 10_000
            let perMinute = 60 * perSecond
            append(decimal: units / (60 * perMinute), width: degreeDigits)
            append(decimal: units / perMinute % 60, width: 2)
            append(decimal: units % perMinute / perSecond, width: 2)
            bytes.append(WellGenerator.ASCII.dot)
            append(decimal: units % perSecond, width: decimals)
        }

        /// Appends `value` as a CSV field: quoted, with doubled quotes, only when it needs to be.
        mutating func append(csvField value: [UInt8]) {
            let needsQuotes = value.contains { byte in
                byte == WellGenerator.ASCII.comma || byte == WellGenerator.ASCII.quote
                    || byte == WellGenerator.ASCII.newline || byte == WellGenerator.ASCII.carriageReturn
            }
            guard needsQuotes else { return bytes.append(contentsOf: value) }
            bytes.append(WellGenerator.ASCII.quote)
            for byte in value {
                bytes.append(byte)
                if byte == WellGenerator.ASCII.quote { bytes.append(byte) }
            }
            bytes.append(WellGenerator.ASCII.quote)
        }

        /// Appends a count with thousands separators, quoted when it has one (`"2,500"`, `980`).
        mutating func append(quotedThousands value: Int) {
            guard value >= 1000 else { return append(decimal: value) }
            bytes.append(WellGenerator.ASCII.quote)
            append(decimal: value / 1000 >= 1000 ? value / 1_000_000 : value / 1000)
            if value >= 1_000_000 {
                bytes.append(WellGenerator.ASCII.comma)
                append(decimal: value / 1000 % 1000, width: 3)
            }
            bytes.append(WellGenerator.ASCII.comma)
            append(decimal: value % 1000, width: 3)
            bytes.append(WellGenerator.ASCII.quote)
        }

        /// Appends a date the US way, `m/d/yyyy` without zero padding (`9/6/1977`).
        mutating func append(usDate date: (year: Int, month: Int, day: Int)) {
            append(decimal: date.month)
            bytes.append(UInt8(ascii: "/"))
            append(decimal: date.day)
            bytes.append(UInt8(ascii: "/"))
            append(decimal: date.year, width: 4)
        }
    }
}
