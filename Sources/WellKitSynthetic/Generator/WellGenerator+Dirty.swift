extension WellGenerator {
    // MARK: - DirtyInjector

    /// Corrupts about 1% of the rows on their way to the output, streaming.
    ///
    /// Exactly `max(1, count / 100)` of the rows `1...count-2` are chosen by selection sampling
    /// (Knuth's Algorithm S) and corrupted in ``DirtyKind`` rotation; the last row opens a quoted
    /// field that is never closed. A separate generator drives all of this, so every row that is
    /// not corrupted is byte-identical to the clean file of the same seed.
    struct DirtyInjector {
        private var random: Random
        private let lastCandidate: Int
        private var toPick: Int
        private var picked = 0
        private var reservoir: [[UInt8]] = []
        private var remembered = 0
        private var fields: [[UInt8]] = []
        private(set) var report = DirtyReport()

        /// Earlier UWIs kept for ``DirtyKind/duplicateUWI`` (a uniform reservoir sample).
        static let reservoirSize = 1024
        static let numberColumns = [2, 3, 16, 17, 18]
        static let dateColumns = [13, 14, 15]
        static let unparseableNumbers = ["N/A", "abc", "12..5", "1,234.5", "52.1.3", "-", "1e999x", " "].map { Array($0.utf8) }
        static let badDates = ["2019-02-30", "13/05/2019", "20190513", "0000-00-00", "2019-13-01"].map { Array($0.utf8) }

        init(count: Int, seed: UInt64) {
            random = Random(seed: Random.mix64(seed ^ 0x6469_7274_7921)) // "dirty!"
            lastCandidate = count - 2
            toPick = count >= 3 ? min(max(1, count / 100), count - 2) : 0
        }

        /// Corrupts row `index` of `count`, the record just written to `out`, if it is chosen.
        mutating func process(_ out: inout CSVOutput, index: Int, count: Int) {
            if index == count - 1 {
                let last = out.currentFields()
                out.discardRecord()
                writeUnterminated(last, to: &out)
            } else if let kind = kind(forRow: index) {
                fields = out.currentFields()
                out.discardRecord()
                let uwi = fields[0]
                if kind != .duplicateUWI { remember(uwi) }
                corrupt(as: kind, to: &out)
                report[kind] += 1
            } else {
                remember(out.rawField(0))
            }
        }

        /// The corruption for row `index`, or `nil` to keep it clean.
        private mutating func kind(forRow index: Int) -> DirtyKind? {
            guard toPick > 0, index >= 1, index <= lastCandidate else { return nil }
            guard random.below(lastCandidate - index + 1) < toPick else { return nil }
            toPick -= 1
            defer { picked += 1 }
            return DirtyKind.allCases[picked % DirtyKind.allCases.count]
        }

        /// Offers a written UWI to the reservoir (Algorithm R).
        private mutating func remember<C: Collection>(_ uwi: C) where C.Element == UInt8 {
            if reservoir.count < DirtyInjector.reservoirSize {
                reservoir.append(Array(uwi))
            } else {
                let slot = random.below(remembered + 1)
                if slot < DirtyInjector.reservoirSize { reservoir[slot] = Array(uwi) }
            }
            remembered += 1
        }

        /// Rewrites `fields` (the clean row) corrupted as `kind`.
        private mutating func corrupt(as kind: DirtyKind, to out: inout CSVOutput) {
            switch kind {
            case .missingLatLon:
                let which = random.int(in: 0...2) // 0: latitude, 1: longitude, 2: both
                if which != 1 { fields[2] = [] }
                if which != 0 { fields[3] = [] }
            case .outOfRange:
                switch random.below(3) {
                case 0: // lost sign (eastern hemisphere)
                    if fields[3].first == ASCII.minus { fields[3].removeFirst() }
                case 1: // impossible latitude
                    fields[2] = []
                    Format.append(fixed: random.uniform(90.5, 999.0), decimals: 6, to: &fields[2])
                default: // null island
                    fields[2] = [ASCII.zero]
                    fields[3] = [ASCII.zero]
                }
            case .swappedCoordinates:
                fields.swapAt(2, 3)
            case .unparseableNumber:
                let column = random.element(of: DirtyInjector.numberColumns)
                fields[column] = random.element(of: DirtyInjector.unparseableNumbers)
            case .duplicateUWI:
                fields[0] = random.element(of: reservoir)
            case .badDate:
                let column = random.element(of: DirtyInjector.dateColumns)
                fields[column] = random.element(of: DirtyInjector.badDates)
            case .wrongColumnCount:
                if random.chance(0.5) {
                    fields.remove(at: random.int(in: 4...19))
                } else {
                    fields.append(Array("EXTRA".utf8))
                }
            case .bareQuote:
                writeBareQuote(to: &out)
                return
            }
            out.appendRecord(fields)
        }

        /// `well_name` unquoted with a quote inside (`ACME LEDUC 6-12-34-5 6" CSG`); other fields as usual.
        private mutating func writeBareQuote(to out: inout CSVOutput) {
            var name = fields[1].compactMap { byte -> UInt8? in
                byte == ASCII.comma ? ASCII.space : (byte == ASCII.quote ? nil : byte)
            }
            name.append(contentsOf: " 6\" CSG".utf8)
            out.beginRecord()
            for (index, field) in fields.enumerated() {
                if index == 1 {
                    out.beginField()
                    out.appendRaw(name)
                } else {
                    out.appendField(field)
                }
            }
            out.endRecord()
        }

        /// The last row: `well_name` opens a quote that is never closed, so it runs to end of file.
        /// No other field keeps a comma or quote, so nothing on the line can close it.
        private mutating func writeUnterminated(_ fields: [[UInt8]], to out: inout CSVOutput) {
            out.beginRecord()
            for (index, field) in fields.enumerated() {
                out.beginField()
                if index == 1 { out.append(byte: ASCII.quote) }
                out.appendRaw(field.filter { $0 != ASCII.comma && $0 != ASCII.quote })
            }
            out.endRecord()
            report.unterminatedQuoteAtEnd = true
        }
    }

    // MARK: - DirtyKind

    /// The ways `dirty` mode corrupts a row; each corrupted row gets exactly one kind, in rotation.
    public enum DirtyKind: String, CaseIterable, Sendable, CustomStringConvertible {
        /// `surface_latitude`, `surface_longitude` or both are blank.
        case missingLatLon = "missing_latlon"
        /// A coordinate outside the Alberta box: longitude without its minus sign, a latitude
        /// between 90.5 and 999, or `0,0` ("null island").
        case outOfRange = "out_of_range"
        /// Latitude and longitude exchanged.
        case swappedCoordinates = "swapped_coordinates"
        /// A coordinate, depth or elevation that is not a number, e.g. `N/A`, `12..5`, `1,234.5`.
        case unparseableNumber = "unparseable_number"
        /// The `uwi` of an earlier row.
        case duplicateUWI = "duplicate_uwi"
        /// A licence, spud or final-drill date that is not a valid ISO date, e.g. `2019-02-30`.
        case badDate = "bad_date"
        /// 19 fields (one of columns 5...20 dropped) or 21 fields (`EXTRA` appended).
        case wrongColumnCount = "wrong_column_count"
        /// A double quote inside an unquoted `well_name` (`... 6" CSG`); strict RFC 4180 parsers reject it.
        case bareQuote = "bare_quote"

        /// The snake_case name printed in reports.
        public var description: String { rawValue }
    }

    // MARK: - DirtyReport

    /// What `dirty` mode injected into one written file; all zero for a clean file.
    public struct DirtyReport: Sendable, Equatable, CustomStringConvertible {
        private var counts = [Int](repeating: 0, count: DirtyKind.allCases.count)

        /// `true` when the last data row opens a quoted field that is never closed.
        public internal(set) var unterminatedQuoteAtEnd = false

        /// An empty report.
        public init() {}

        /// The number of rows corrupted as `kind`.
        public internal(set) subscript(kind: DirtyKind) -> Int {
            get { counts[DirtyReport.position(of: kind)] }
            set { counts[DirtyReport.position(of: kind)] = newValue }
        }

        /// Rows corrupted in any of the ``DirtyKind`` ways (the unterminated last row not included).
        public var corruptedRows: Int { counts.reduce(0, +) }

        /// `true` when nothing was corrupted.
        public var isClean: Bool { corruptedRows == 0 && !unterminatedQuoteAtEnd }

        /// One line such as `missing_latlon=306, out_of_range=306, ..., unbalanced_quote_at_eof=1`.
        public var description: String {
            let kinds = DirtyKind.allCases.map { "\($0.rawValue)=\(self[$0])" }
            return (kinds + ["unbalanced_quote_at_eof=\(unterminatedQuoteAtEnd ? 1 : 0)"]).joined(separator: ", ")
        }

        private static func position(of kind: DirtyKind) -> Int {
            DirtyKind.allCases.firstIndex(of: kind)!
        }
    }
}
