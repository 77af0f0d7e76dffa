// Fuzz target `values`: ValueParsing.number/decimal/decimalComma/date, DMS.parse and PointText.parse.
//
// Checks, beyond "never traps": numbers are finite, and a plain decimal equals `Double(_:)`'s
// correctly rounded reading; a date is a real day and round-trips through its ISO form; an angle is
// finite and within ±180° (±90° for a latitude).

@_cdecl("LLVMFuzzerTestOneInput")
public func valuesFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)

    if let value = ValueParsing.number(bytes) {
        precondition(value.isFinite, "ValueParsing.number: \(value) is not finite")
        if !bytes.contains(UInt8(ascii: ",")), let reference = Double(text) {
            precondition(value == reference, "ValueParsing.number: \(value), but Double(_:) reads \(reference)")
        }
    }
    if let value = ValueParsing.number(text) { precondition(value.isFinite, "ValueParsing.number(String): not finite") }

    if let parsed = ValueParsing.date(bytes) {
        let iso: String
        switch parsed {
        case .iso: iso = text
        case .other(let year, let month, let day):
            precondition((1000...9999).contains(year) && (1...12).contains(month) && (1...31).contains(day), "ValueParsing.date: \(parsed)")
            iso = ValueParsing.iso(year: year, month: month, day: day)
        case .year(let year):
            precondition((1000...9999).contains(year), "ValueParsing.date: \(parsed)")
            iso = String(year)
        }
        precondition(iso.utf8.count == 10 || (iso.utf8.count == 4 && parsed != .iso), "ValueParsing.date: \"\(iso)\" is not yyyy-mm-dd or yyyy")
        precondition(ValueParsing.date(iso) == iso, "ValueParsing.date: \"\(iso)\" does not round-trip")
        precondition(ValueParsing.date(text) == iso, "ValueParsing.date(String) disagrees with the bytes")
    }

    // Decimal commas and one-column points: finite, and a point's latitude and longitude in range when they are degrees.
    if let value = ValueParsing.decimalComma(bytes) { precondition(value.isFinite, "ValueParsing.decimalComma: not finite") }
    for comma in [false, true] {
        guard let point = PointText.parse(text, decimalComma: comma) else { continue }
        precondition(point.x.isFinite && point.y.isFinite, "PointText.parse: \(point) is not finite")
        if point.form != .wkt { precondition(abs(point.y) <= 90 || point.form == .tuple, "PointText.parse: \(point) latitude out of range") }
    }

    for implied in [nil, DMS.Hemisphere.north, .west] {
        guard let degrees = try? DMS.parse(text, impliedHemisphere: implied) else { continue }
        precondition(degrees.isFinite, "DMS.parse: \(degrees) is not finite")
        precondition(abs(degrees) <= (implied == .north ? 90 : 180), "DMS.parse: \(degrees) out of range")
    }
    return 0
}
