import Testing
@testable import WellKit

/// The rejects a load writes out as it finds them: in line order however they were added.
@Suite struct RejectListTests {
    static func reject(_ line: Int, _ kind: RejectKind = .duplicateIdentifier) -> Reject {
        Reject(line: line, column: "uwi", kind: kind, reason: "line \(line)", raw: "W\(line),Well")
    }

    /// Rejects added later in line order make one run, whatever their number: the merge then reads
    /// two runs, not one per reject (which made reading them quadratic). Out of order, a new run
    /// starts, and the merge still gives line order.
    @Test func laterRejectsInLineOrderMakeOneRun() {
        var list = RejectList()
        for line in stride(from: 2, through: 20_000, by: 4) { list.append(Self.reject(line, .wrongFieldCount)) }
        for line in stride(from: 3, through: 20_000, by: 4) { list.appendLater(Self.reject(line)) }
        #expect(list.runCount == 2)
        for line in stride(from: 5, through: 20_000, by: 4) { list.appendLater(Self.reject(line, .suspectSwapped)) }
        #expect(list.runCount == 3)
        let lines = list.map(\.line)
        #expect(lines.count == list.count && list.count == 14_999)
        #expect(lines == lines.sorted())
        #expect(list.kinds[.suspectSwapped] == 4_999 && list.kinds[.wrongFieldCount] == 5_000)
    }

    /// A copy shares its runs until one of them changes: adding to one list leaves the other as it was.
    @Test func aCopyKeepsItsRejects() {
        var list = RejectList()
        list.appendLater(Self.reject(2))
        let copy = list
        list.appendLater(Self.reject(3))
        #expect(copy.map(\.line) == [2])
        #expect(list.map(\.line) == [2, 3])
    }
}
