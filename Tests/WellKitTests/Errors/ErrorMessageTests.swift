import Foundation
import Testing
@testable import WellKit
import WellsTestSupport

/// Pins each library error's typed fields and its full text, as swift-argument-parser's
/// `ErrorMessageTests` does: a changed message fails here first. No text names a `wells` command or flag.
@Suite struct ErrorMessageTests {
    private func thrown<E: Error>(_ type: E.Type, _ body: () throws -> Void) -> E? {
        do { try body() } catch let error as E { return error } catch { Issue.record("threw \(error)") }
        return nil
    }

    @Test func predicateUnknownOperatorHasTokenAndOffset() throws {
        let error = try #require(thrown(QueryError.self) { _ = try WellPredicate(parsing: "status ~ x") })
        #expect(error.code == .syntax && error.subject == .predicate)
        #expect(error.text == "status ~ x" && error.token == "~" && error.offset == 8)
        #expect(error.description == "predicate \"status ~ x\": unknown operator \"~\"; use = != < <= > >= contains beginswith endswith between in or is null")
    }

    @Test func predicateUnclosedQuote() throws {
        let error = try #require(thrown(QueryError.self) { _ = try WellPredicate(parsing: "name = 'abc") })
        #expect(error.code == .syntax && error.token == "'" && error.offset == 8)
        #expect(error.description == "predicate \"name = 'abc\": the quote opened at character 8 is never closed")
    }

    @Test func predicateUnknownField() throws {
        let error = try #require(thrown(QueryError.self) { _ = try WellPredicate(parsing: "depth > 10") })
        #expect(error.code == .unknownField && error.token == "depth" && error.offset == 1)
        #expect(error.description.hasPrefix("predicate \"depth > 10\": unknown field \"depth\"; valid fields: id, "))
        #expect(error.description.hasSuffix("(details fields may be written detail.NAME), or extra.NAME for a source column no field maps (character 1)"))
    }

    @Test func predicateValueOfTheWrongType() throws {
        let error = try #require(thrown(QueryError.self) { _ = try WellPredicate(parsing: "lat > north") })
        #expect(error.code == .invalidValue && error.field == .latitude && error.token == "north" && error.offset == 7)
    }

    @Test func unknownFieldName() throws {
        let error = try #require(thrown(QueryError.self) { _ = try WellField(keyPath: "colour") })
        #expect(error.code == .unknownField && error.subject == .fieldName && error.token == "colour")
        #expect(error.description == "unknown field \"colour\"; valid fields: \(WellField.allCases.map(\.rawValue).joined(separator: ", ")) (details fields may be written detail.NAME), or extra.NAME for a source column no field maps")
    }

    @Test func badSortDirection() throws {
        let error = try #require(thrown(QueryError.self) { _ = try WellSortDescriptor(parsing: "name:up") })
        #expect(error.code == .invalidDirection && error.field == .name && error.token == "up" && error.offset == 6)
        #expect(error.description == "sort \"name:up\": the direction must be asc or desc")
    }

    @Test func boxAcrossTheAntimeridian() throws {
        let box = try BoundingBox(minLongitude: 170, minLatitude: -10, maxLongitude: -170, maxLatitude: 10)
        let error = try #require(thrown(QueryError.self) { _ = try box.parts(.reject) })
        #expect(error.code == .crossesAntimeridian && error.remedy == .splitAtAntimeridian)
        #expect(error.description == "BoundingBox: minLongitude 170.0 is greater than maxLongitude -170.0, so the box crosses the antimeridian; query with AntimeridianRule.split to query both sides")
    }

    @Test func notABox() throws {
        let error = try #require(thrown(QueryError.self) { _ = try BoundingBox(parsing: "1,2,3") })
        #expect(error.code == .invalidValue && error.subject == .boundingBox && error.text == "1,2,3")
        #expect(error.description == "\"1,2,3\" is not a box; expected minLon,minLat,maxLon,maxLat such as -114.2,50.9,-113.9,51.2")
    }

    @Test func notAWellStore() throws {
        let path = try Fixtures.storePath()
        let queue = try GRDBTestSupport.makeForeignDatabase(at: path)
        _ = queue
        let error = try #require(thrown(StoreError.self) { _ = try WellStore(path: path, mode: .existing) })
        #expect(error.code == .notAWellStore && error.remedy == .chooseNewFile && error.path == path)
        #expect(error.description == "\(path): not a WellKit store (it holds birds); choose a new file for the store")
    }

    @Test func noStoreHere() throws {
        let path = try Fixtures.storePath()
        let error = try #require(thrown(StoreError.self) { _ = try WellStore(path: path, mode: .existing) })
        #expect(error.code == .notFound && error.remedy == .createStore)
        #expect(error.description == "\(path): no store here; create one with WellStore(path:mode: .create) and load a file into it")
    }

    @Test func newerSchema() throws {
        let path = try Fixtures.storePath()
        _ = try WellStore(path: path)
        try GRDBTestSupport.setUserVersion(99, at: path)
        let error = try #require(thrown(StoreError.self) { _ = try WellStore(path: path, mode: .existing) })
        #expect(error.code == .newerSchema && error.schemaVersion == 99 && error.remedy == .upgradeWellKit(knowsUpTo: Schema.version))
        #expect(error.description == "\(path): store has schema version 99, but this WellKit \(wellKitVersion) knows up to version \(Schema.version); upgrade WellKit to open it")
    }

    @Test func importWithoutCoordinateColumns() throws {
        let error = try #require(thrown(ImportError.self) {
            _ = try ColumnMapping(header: ["Well", "Depth"], file: "w.csv")
        })
        #expect(error.code == .noCoordinateColumns && error.remedy == .mapColumns && error.header == ["Well", "Depth"])
        #expect(error.description == "w.csv: no lat/lon column in decimal degrees among: Well, Depth. If a column holds decimal degrees or DMS, "
                + "name it in LoadOptions.mapping[\"lat\"] and [\"lon\"]; if the file has projected x/y (such as UTM metres), set "
                + "LoadOptions.coordinates.crs, .xColumn and .yColumn")
    }

    @Test func projectedXYWithoutCRS() throws {
        let path = try Fixtures.file("id,x,y\nA,500000,4000000\n")
        let store = try Fixtures.makeStore()
        var options = LoadOptions()
        options.coordinates.xColumn = "x"
        options.coordinates.yColumn = "y"
        let error = try #require(thrown(ImportError.self) { _ = try store.load(csvAt: path, options: options) })
        #expect(error.code == .invalidOption && error.remedy == .crsForXY && error.file == path)
        #expect(error.description == "\(path): x and y columns without the CRS they are in; set LoadOptions.coordinates.crs, the CRS of those columns, such as EPSG:26916 for UTM zone 16N metres")
    }

    @Test func missingColumnInTheMapping() throws {
        let error = try #require(thrown(ImportError.self) {
            _ = try ColumnMapping(header: ["uwi", "lat", "lon"], overrides: ["operator": "Licensee"], file: "w.csv")
        })
        #expect(error.code == .unknownColumn && error.remedy == .chooseColumn(.mapping(field: "operator"), given: "Licensee"))
        #expect(error.description == "w.csv: LoadOptions.mapping[\"operator\"] = \"Licensee\": no such column; the header has: uwi, lat, lon")
    }

    @Test func missingLibraryIsAnError() {
        let result: Result<Int, StoreError> = SystemLibrary.load("Nothing", names: ["libwellkit-none.so"], package: "libnothing-dev", into: 0) { _, _ in nil }
        guard case .failure(let error) = result else { Issue.record("loaded a library that does not exist"); return }
        #expect(error.code == .missingLibrary && error.library == "Nothing" && error.remedy == .installPackage("libnothing-dev"))
        #expect(error.description.hasPrefix("WellKit needs Nothing and could not load it (libwellkit-none.so"))
        #expect(error.description.hasSuffix("); install libnothing-dev"))
    }

    @Test func rejectKindsKeepTheirTexts() {
        #expect(RejectKind.allCases.count == 20)
        #expect(RejectKind.legalDescription.rawValue == "legal description, not coordinates")
        #expect(RejectKind(suspect: "outside named place") == .suspectOutsidePlace)
        #expect(RejectKind.latitudeOutOfRange.rawValue == "latitude out of range")
        for slip in ["longitude sign", "latitude sign", "swapped", "lost digit", "far from the others"] {
            #expect(RejectKind(suspect: slip).rawValue == "suspect: " + slip)
        }
    }

    /// The reasons of rejects, warnings and inferences name their remedy in the API's terms by
    /// default, and in a front end's words through `LoadOptions.describeRemedy`.
    @Test func rejectReasonsSayTheRemedyInTheAPIsTerms() throws {
        let path = try Fixtures.file("uwi,name,lat,lon\nA1,One,36.1,-86.7\nA1,Again,36.2,-86.8\n,Blank,36.3,-86.9\n")
        var options = LoadOptions()
        options.onMissingIdentifier = .reject
        let summary = try Fixtures.makeStore().load(csvAt: path, options: options) { rejects in
            #expect(rejects.map(\.reason) == [
                #"identifier "A1" already appears on line 2, which was kept; make it unique, or load with LoadOptions.onDuplicate = .last to keep the later row"#,
                "the identifier is empty; fill it in, or load with LoadOptions.onMissingIdentifier = .generate",
            ])
        }
        #expect(summary.inferences.first { $0.subject == "identifier" }?.override
                == #"LoadOptions.identifier = .column("COLUMN") or LoadOptions.identifier = .none"#)
        options.describeRemedy = { "<\($0.apiText)>" }
        _ = try Fixtures.makeStore().load(csvAt: path, options: options) { rejects in
            #expect(Array(rejects).last?.reason == "the identifier is empty; fill it in, or load with <LoadOptions.onMissingIdentifier = .generate>")
        }
    }

    /// No library message names the CLI: a remedy is said in the API's terms.
    @Test func noMessageNamesTheCLI() throws {
        let errors: [any Error] = [
            thrown(StoreError.self) { _ = try WellStore(path: try Fixtures.storePath(), mode: .existing) }!,
            thrown(ImportError.self) { _ = try ColumnMapping(header: ["a"], file: "f.csv") }!,
            thrown(QueryError.self) { _ = try WellPredicate(parsing: "status ~ x") }!,
        ]
        for error in errors {
            #expect(!"\(error)".contains("--") && !"\(error)".contains("`wells"), "\(error)")
        }
    }
}

import GRDB

/// Makes stores that are not WellKit's, for the error tests.
enum GRDBTestSupport {
    static func makeForeignDatabase(at path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE birds(name TEXT)") }
        return queue
    }

    static func setUserVersion(_ version: Int, at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = \(version)") }
    }
}
