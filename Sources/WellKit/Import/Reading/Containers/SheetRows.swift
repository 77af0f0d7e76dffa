/// A sheet's rows (`xl/worksheets/sheetN.xml`), read as they stream (``SheetEvents``) and written to a
/// ``CSVSpool``, each record mapped to its row number in the sheet.
///
/// A cell is written as a CSV of the same sheet would hold it: shared and inline strings as their
/// text, numbers in their shortest round-trip form (`30.854500000000002` → `30.8545`, `16235`), booleans
/// `TRUE`/`FALSE`, error cells as their text (`#N/A`), and numbers in a date format as ISO dates
/// (`1982-07-03`, or `1982-07-03T14:30:00` with a time). Rows are as wide as the sheet
/// (`<dimension>`) or its header, so that values under blank header cells are kept; empty rows are
/// left out. Up to three rows of at most one cell before the header are written as one field each,
/// so that ``TitleLines`` finds them as it finds a text file's title lines.
final class SheetRows: SheetEvents {
    private let book: Workbook
    private let spool: CSVSpool
    private let unit: Int
    private(set) var written = 0

    private var width = 0
    private var headerSeen = false
    private var row: [String] = []
    private var rowNumber = 0
    private var column = 0
    private var type = ""
    private var style = 0
    /// The text of the cell's value so far, and whether text read now belongs to it (``SheetScanner`` appends to it).
    var text = ""
    private(set) var collecting = false
    private var hasValue = false

    init(book: Workbook, spool: CSVSpool, unit: Int) {
        self.book = book
        self.spool = spool
        self.unit = unit
    }

    // The sheet's elements, from ``SheetScanner`` (a UTF-8 part) or `XMLParser` (``Workbook``'s adapter).

    /// `<dimension ref="A1:U33">`: the sheet is 21 columns wide, whatever its header's last named column.
    func dimension(_ reference: String?) {
        if let last = reference?.split(separator: ":").last, let index = Self.columnIndex(String(last)) { width = index + 1 }
    }

    func startRow(_ reference: String?) {
        row.removeAll(keepingCapacity: true)
        rowNumber = reference.flatMap(Int.init) ?? rowNumber + 1
    }

    func startCell(reference: String?, type: String?, style: String?) {
        if let reference, let index = Self.columnIndex(reference) { column = index } else { column = row.count }
        self.type = type ?? "n"
        self.style = style.flatMap(Int.init) ?? 0
        text = ""
        hasValue = false
    }

    /// `<v>`, or an inline string's `<t>` (not a phonetic run's).
    func startValue() {
        collecting = true
        hasValue = true
    }

    func endValue() { collecting = false }

    func endCell() {
        collecting = false
        guard hasValue else { return }
        let value = cellText()
        guard !value.isEmpty else { return }
        while row.count < column { row.append("") }
        if row.count == column { row.append(value) } else { row[column] = value }
    }

    func endRow() throws {
        try writeRow()
    }

    private func writeRow() throws {
        let filled = row.count { !$0.isEmpty }
        guard filled > 0 else { return }
        if !headerSeen {
            if filled <= 1 && written < 3 {
                // A title above the header (`Orphan wells as of 2024-08-09`): one field, as a text file has it.
                try spool.write([row.first { !$0.isEmpty }!], unit: nil, native: rowNumber)
                written += 1
                return
            }
            headerSeen = true
            width = max(width, row.count)
            while row.count < width { row.append("") }
            try spool.write(row, unit: nil, native: rowNumber)
            written += 1
            return
        }
        while row.count < width { row.append("") }
        try spool.write(row, unit: unit, native: rowNumber)
        written += 1
    }

    private func cellText() -> String {
        switch type {
        case "s":
            guard let index = Int(text), book.sharedStrings.indices.contains(index) else { return text }
            return book.sharedStrings[index]
        case "b": return text == "1" ? "TRUE" : text == "0" ? "FALSE" : text
        case "inlineStr", "str", "e", "d": return text
        default:
            guard let number = Double(text) else { return text }
            if style < book.dateStyles.count, book.dateStyles[style], let date = Self.isoDate(serial: number, date1904: book.date1904) { return date }
            return Self.shortest(number)
        }
    }

    /// A number in the shortest text that reads back as the same double, without a fraction when it has none.
    static func shortest(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    /// An Excel date serial as `yyyy-mm-dd`, or `yyyy-mm-ddTHH:MM:SS` when it has a time of day.
    ///
    /// In the 1900 system day 1 is 1900-01-01 and day 60 the 1900-02-29 that Lotus 1-2-3 invented,
    /// so days from 61 count from 1899-12-30; in the 1904 system day 0 is 1904-01-01.
    static func isoDate(serial: Double, date1904: Bool) -> String? {
        guard serial.isFinite, serial >= 0, serial < 2_958_466 else { return nil }
        var days = Int(serial.rounded(.down))
        var seconds = Int(((serial - Double(days)) * 86_400).rounded())
        if seconds >= 86_400 { days += 1; seconds -= 86_400 }
        let unixDays = date1904 ? days - 24_107 : days >= 61 ? days - 25_569 : days - 25_568
        let (year, month, day) = ValueParsing.civil(days: Int64(unixDays))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var out = ValueParsing.iso(year: year, month: month, day: day)
        if seconds > 0 { out += "T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))" }
        return out
    }

    /// The 0-based column of a cell reference: `A1` → 0, `AB12` → 27.
    static func columnIndex(_ reference: String) -> Int? {
        var index = 0, letters = 0
        for byte in reference.utf8 {
            guard byte >= 65 && byte <= 90 || byte >= 97 && byte <= 122 else { break }
            index = index * 26 + Int(byte & 0x1F)
            letters += 1
            if letters > 3 { return nil }
        }
        return letters == 0 ? nil : index - 1
    }
}
