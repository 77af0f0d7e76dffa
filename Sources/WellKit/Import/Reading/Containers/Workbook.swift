import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ZIPFoundation

/// An Office Open XML workbook (`.xlsx`), read part by part from its ZIP with ZIPFoundation: the
/// sheets' names and parts (`xl/workbook.xml` and its relationships) and which cell styles are
/// dates (`xl/styles.xml`) by FoundationXML's streaming `XMLParser`; the shared strings and each
/// sheet's rows by ``SheetScanner``, the rows written to a ``CSVSpool`` as they are read. No part
/// is held as a tree: a sheet costs its row, the shared strings their text.
struct Workbook {
    struct Sheet {
        var name: String
        /// The part in the archive, such as `xl/worksheets/sheet1.xml`.
        var part: String
    }

    let archive: Archive
    /// The workbook as the user named it, for messages.
    let label: String
    private(set) var sheets: [Sheet] = []
    private(set) var sharedStrings: [String] = []
    /// Per cell format (`s` of a cell, an index of `cellXfs`): whether it shows a date.
    private(set) var dateStyles: [Bool] = []
    /// The workbook counts days from 1904 (old Mac Excel), not 1900.
    private(set) var date1904 = false

    /// Opens the workbook at `path` (or an archive's member spooled there).
    init(archive: Archive, label: String) throws {
        self.archive = archive
        self.label = label
        guard let book = try parse("xl/workbook.xml", WorkbookParts()) else {
            throw ImportError(.notText, "the file is a ZIP archive without xl/workbook.xml, so not an .xlsx workbook", file: label)
        }
        date1904 = book.date1904
        let targets = try parse("xl/_rels/workbook.xml.rels", Relationships())?.targets ?? [:]
        sheets = book.sheets.compactMap { name, id in
            guard let target = targets[id] else { return nil }
            let part = target.hasPrefix("/") ? String(target.dropFirst()) : "xl/" + target
            return Sheet(name: name, part: part)
        }
        let strings = SharedStrings()
        if try read("xl/sharedStrings.xml", into: strings) { sharedStrings = strings.strings }
        dateStyles = try parse("xl/styles.xml", Styles())?.dateStyles ?? []
    }

    /// Parses the part `path` with `delegate`; nil when the archive has no such part.
    private func parse<D: XMLParserDelegate & PartParser>(_ path: String, _ delegate: D) throws -> D? {
        guard let entry = archive[path] else { return nil }
        try ZipMembers.withExtracted(entry, from: archive, label: label) { file in
            guard let stream = InputStream(fileAtPath: file) else {
                throw ImportError(.cannotOpen, "cannot read the workbook's \(path)", file: label)
            }
            let parser = XMLParser(stream: stream)
            parser.delegate = delegate
            parser.shouldProcessNamespaces = false
            guard parser.parse(), delegate.failure == nil else {
                throw damaged(path, line: parser.lineNumber, delegate.failure ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "unreadable XML")
            }
        }
        return delegate
    }

    private func damaged(_ path: String, line: Int, _ reason: String) -> ImportError {
        ImportError(.notText, "the workbook's \(path) cannot be read (line \(line)): \(reason); "
            + "the file is damaged: save it again from the spreadsheet, or export the sheet as CSV (UTF-8)", file: label)
    }

    /// Reads the sheet-like part `path` (a worksheet, the shared strings) into `events`, extracted
    /// once: a UTF-8 part (every workbook Excel, LibreOffice, GDAL or openpyxl writes) by
    /// ``SheetScanner``, another encoding by `XMLParser`. False when the archive has no such part.
    private func read(_ path: String, into events: some SheetEvents) throws -> Bool {
        guard let entry = archive[path] else { return false }
        try ZipMembers.withExtracted(entry, from: archive, label: label) { file in
            let data = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
            let utf8 = try data.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                guard SheetScanner.isUTF8(bytes) else { return false }
                do {
                    try SheetScanner(bytes).scan(into: events)
                } catch let failure as SheetScanner.Failure {
                    throw damaged(path, line: failure.line, failure.reason)
                }
                return true
            }
            guard !utf8 else { return }
            let parser = XMLParser(data: data), delegate = SheetParserEvents(events)
            parser.delegate = delegate
            parser.shouldProcessNamespaces = false
            let parsed = parser.parse()
            if let error = delegate.error { throw error }
            guard parsed else { throw damaged(path, line: parser.lineNumber, parser.parserError.map { "\($0.localizedDescription)" } ?? "unreadable XML") }
        }
        return true
    }

    /// Writes the rows of `sheet` to `spool` as records of `unit`; returns how many rows it wrote.
    func write(_ sheet: Sheet, to spool: CSVSpool, unit: Int) throws -> Int {
        guard archive[sheet.part] != nil else {
            throw ImportError(.notText, "the workbook names sheet \"\(sheet.name)\" in \(sheet.part), which the archive does not hold; "
                + "the file is damaged: save it again from the spreadsheet", file: label)
        }
        let rows = SheetRows(book: self, spool: spool, unit: unit)
        _ = try read(sheet.part, into: rows)
        return rows.written
    }
}

/// A delegate of a workbook part read whole by `XMLParser` that can say why it gave up.
protocol PartParser: AnyObject {
    var failure: String? { get }
}

/// `xl/workbook.xml`: the sheets in order, each with its relationship id, and the date system.
private final class WorkbookParts: NSObject, XMLParserDelegate, PartParser {
    var sheets: [(name: String, id: String)] = []
    var date1904 = false
    var failure: String?

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "sheet":
            if let name = attributes["name"], let id = attributes["r:id"] ?? attributes.first(where: { $0.key.hasSuffix(":id") })?.value {
                sheets.append((name, id))
            }
        case "workbookPr":
            date1904 = ["1", "true"].contains(attributes["date1904"] ?? "")
        default: break
        }
    }
}

/// `xl/_rels/workbook.xml.rels`: relationship id → part, relative to `xl/`.
private final class Relationships: NSObject, XMLParserDelegate, PartParser {
    var targets: [String: String] = [:]
    var failure: String?

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if element == "Relationship", let id = attributes["Id"], let target = attributes["Target"] { targets[id] = target }
    }
}

/// `xl/sharedStrings.xml`: each `si` (a cell to ``SheetScanner``) and its `t` runs' text joined, phonetic runs (`rPh`) left out.
private final class SharedStrings: SheetEvents {
    var strings: [String] = []
    private(set) var collecting = false
    var text = ""

    func dimension(_ reference: String?) {}
    func startRow(_ reference: String?) {}
    func startCell(reference: String?, type: String?, style: String?) { text = "" }
    func startValue() { collecting = true }
    func endValue() { collecting = false }
    func endCell() { strings.append(text); collecting = false }
    func endRow() throws {}
}

/// `XMLParser`'s callbacks as ``SheetScanner`` hands them on, for a part that is not UTF-8: the
/// same elements (a namespace prefix left out), text only inside a value, and the first error
/// `events` throws, after which parsing stops.
private final class SheetParserEvents<Events: SheetEvents>: NSObject, XMLParserDelegate {
    let events: Events
    private(set) var error: Error?
    private var phonetic = 0

    init(_ events: Events) { self.events = events }

    private static func local(_ element: String) -> Substring { element.split(separator: ":").last ?? Substring(element) }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch Self.local(element) {
        case "c", "si": events.startCell(reference: attributes["r"], type: attributes["t"], style: attributes["s"])
        case "v", "t": if phonetic == 0 { events.startValue() }
        case "rPh": phonetic += 1
        case "row": events.startRow(attributes["r"])
        case "dimension": events.dimension(attributes["ref"])
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if events.collecting { events.text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        if events.collecting { events.text += String(decoding: block, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        switch Self.local(element) {
        case "v", "t": if phonetic == 0 { events.endValue() }
        case "rPh": phonetic = max(0, phonetic - 1)
        case "c", "si": events.endCell()
        case "row":
            guard error == nil else { return }
            do {
                try events.endRow()
            } catch {
                self.error = error
                parser.abortParsing()
            }
        default: break
        }
    }
}

/// `xl/styles.xml`: which cell formats (`cellXfs`) show dates, from their number format: the
/// built-in date and time formats (ids 14–22 and 45–47) or a custom code with a day, month or
/// year token outside quotes, brackets and escapes (`m/d/yyyy`, `dd-mmm-yy`, `yyyy-mm-dd hh:mm`).
private final class Styles: NSObject, XMLParserDelegate, PartParser {
    var dateStyles: [Bool] = []
    var failure: String?
    private var customDates: [Int: Bool] = [:]
    private var inCellXfs = false

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "numFmt":
            if let id = attributes["numFmtId"].flatMap(Int.init), let code = attributes["formatCode"] { customDates[id] = Self.isDate(code: code) }
        case "cellXfs": inCellXfs = true
        case "xf" where inCellXfs:
            let id = attributes["numFmtId"].flatMap(Int.init) ?? 0
            dateStyles.append((14...22).contains(id) || (45...47).contains(id) || customDates[id] == true)
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "cellXfs" { inCellXfs = false }
    }

    /// Whether a number format code shows a date: a `d`, `y` or `m` token outside `"…"`, `[…]` and `\x` escapes.
    static func isDate(code: String) -> Bool {
        var quoted = false, bracket = false, escape = false
        for c in code.lowercased() {
            if escape { escape = false; continue }
            switch c {
            case "\\": escape = true
            case "\"": quoted.toggle()
            case "[" where !quoted: bracket = true
            case "]" where !quoted: bracket = false
            default: if !quoted && !bracket && (c == "d" || c == "m" || c == "y") { return true }
            }
        }
        return false
    }
}
