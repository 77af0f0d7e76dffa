// Fuzz target `sheet`: SheetScanner, the byte reader of a workbook's sheet XML (hostile bytes
// from any .xlsx a user loads).
//
// Checks, beyond "never traps" and "ends": the events nest as a sheet's do (a value only inside a
// cell, a cell's end only after its start), and text is collected only inside a value.

@_cdecl("LLVMFuzzerTestOneInput")
public func sheetFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let recorder = Recorder()
    let bytes = UnsafeBufferPointer(start: data, count: size)
    _ = SheetScanner.isUTF8(bytes)
    do { try SheetScanner(bytes).scan(into: recorder) } catch is SheetScanner.Failure {} catch { fatalError("sheet: \(error)") }
    return 0
}

final class Recorder: SheetEvents {
    private(set) var collecting = false
    var text = "" {
        didSet { precondition(collecting || text.isEmpty, "sheet: text collected outside a value") }
    }
    private var inCell = false

    func dimension(_ reference: String?) {}
    func startRow(_ reference: String?) { inCell = false }
    func startCell(reference: String?, type: String?, style: String?) { inCell = true; text = "" }
    func startValue() { collecting = true }
    func endValue() { collecting = false }
    func endCell() { collecting = false; inCell = false; text = "" }
    func endRow() throws {}
}
