import Testing
@testable import WellKit
@testable import WellKitSynthetic

/// Checks that `mapping` maps exactly `expected` (field → column name) and leaves every other
/// column unmapped.
private func expectMapping(_ mapping: ColumnMapping, _ expected: [WellField: String],
                           sourceLocation: SourceLocation = #_sourceLocation) {
    for field in WellField.mappable {
        #expect(mapping.column(for: field) == expected[field], "field \(field.rawValue)", sourceLocation: sourceLocation)
    }
    let mappedColumns = Set(expected.values)
    let unmapped = mapping.header.indices.filter { !mappedColumns.contains(mapping.header[$0]) }
    #expect(mapping.unmappedIndices == unmapped, sourceLocation: sourceLocation)
    #expect(mapping.fieldColumns.map(\.field) == WellField.mappable.filter { expected[$0] != nil }.map(\.rawValue),
            sourceLocation: sourceLocation)
}

private func header(_ line: String, separator: Character = ",") -> [String] {
    line.split(separator: separator, omittingEmptySubsequences: false).map { String($0) }
}

@Suite struct ColumnMappingTests {
    static let tennessee = header(
        "api_num,other_id,latitude,longitude,stusps,county,municipality,well_name,operator,spud_date,plug_date,"
            + "well_type,well_status,well_configuration,ft_category,wellwiki,src_url")
    static let nwis = header(
        "agency_cd\tsite_no\tstation_nm\tdec_lat_va\tdec_long_va\tcoord_acy_cd\tdec_coord_datum_cd\talt_va\t"
            + "alt_acy_va\talt_datum_cd\twell_depth_va\thole_depth_va", separator: "\t")
    static let alabama = header(
        "Id,Permit,API,WellName,Operator,FieldName,Pool,Status,Type,County,Sec,Twp,TwpDir,Rng,RngDir,TypeDesc,"
            + "StatusDesc,ConstructKey,FieldKey,CountyKey,WellKey,Longitude,Latitude,FieldNumber,PermitDate,Region,"
            + "PoolCode,Comment,DrillingUnitAcres,DrillingUnitDesc,PLSS,LastLogDate,FirstProductionDate,SpudDate,DTD,"
            + "LTD,TVD,MD,StatusDate,UnitName,GRElev,KBElev,DFElev")
    static let indiana = header(
        "OBJECTID,IGS_ID,Permit_Number,County,Land_Type,Land_Number,Township,Range,Operator_Name,Lease_Name,"
            + "Well_Number,Status,Twp_Direction,Rng_Direction,HydroFrac,Utmx,Utmy,Method,ClassII,permit_int,igs_int,"
            + "Scan Status,Current Status,x,y")

    @Test func tennessee() throws {
        expectMapping(try ColumnMapping(header: Self.tennessee), [
            .identifier: "api_num", .latitude: "latitude", .longitude: "longitude", .state: "stusps",
            .county: "county", .name: "well_name", .operator: "operator", .spudDate: "spud_date",
            .plugDate: "plug_date", .type: "well_type", .status: "well_status",
        ])
    }

    @Test func usgsNWIS() throws {
        expectMapping(try ColumnMapping(header: Self.nwis), [
            .identifier: "site_no", .name: "station_nm", .latitude: "dec_lat_va", .longitude: "dec_long_va",
            .groundElevation: "alt_va", .totalDepth: "well_depth_va",
        ])
        // The brief's shorthand, with ", " separators, read by CSVReader (which trims unquoted fields).
        let record = try #require(try CSVReader(bytes: Array("agency_cd, site_no, station_nm, dec_lat_va, dec_long_va\n".utf8)).next())
        let padded = try ColumnMapping(header: record.fields)
        #expect(padded.column(for: .identifier) == "site_no" && padded.column(for: .longitude) == "dec_long_va")
        #expect(padded.unmappedIndices == [0])
    }

    @Test func alabama() throws {
        // API (a synonym before Id and WellKey) wins the identifier; DTD wins total depth over TVD and MD.
        expectMapping(try ColumnMapping(header: Self.alabama), [
            .identifier: "API", .licence: "Permit", .name: "WellName", .operator: "Operator", .field: "FieldName",
            .formation: "Pool", .status: "Status", .type: "Type", .county: "County", .longitude: "Longitude",
            .latitude: "Latitude", .spudDate: "SpudDate", .totalDepth: "DTD", .groundElevation: "GRElev",
            .kbElevation: "KBElev",
        ])
    }

    @Test func syntheticAlberta() throws {
        #expect(WellGenerator.header.prefix(6) == ["uwi", "well_name", "surface_latitude", "surface_longitude",
                                                    "licence_number", "licensee"])
        expectMapping(try ColumnMapping(header: WellGenerator.header), [
            .identifier: "uwi", .name: "well_name", .latitude: "surface_latitude", .longitude: "surface_longitude",
            .licence: "licence_number", .operator: "licensee", .field: "field_name", .formation: "formation",
            .status: "status", .fluid: "fluid", .type: "well_type", .state: "province", .spudDate: "spud_date",
            .completionDate: "final_drill_date", .totalDepth: "total_depth_m",
            .groundElevation: "ground_elevation_m", .kbElevation: "kb_elevation_m",
        ])
    }

    @Test(arguments: [
        (["API#", "WELL NAME", "LAT", "LONG"], ["API#", "WELL NAME", "LAT", "LONG"]),
        (["API WELL NUMBER", "Well Name", "SURFACE LATITUDE", "SURFACE LONGITUDE"],
         ["API WELL NUMBER", "Well Name", "SURFACE LATITUDE", "SURFACE LONGITUDE"]),
        (["ApiWellNumber", "lat", "lng", "x"], ["ApiWellNumber", nil, "lat", "lng"]),
        (["UWI", "Latitude (NAD83)", "Longitude (NAD83)"], ["UWI", nil, "Latitude (NAD83)", "Longitude (NAD83)"]),
    ] as [([String], [String?])])
    func spellings(header: [String], expected: [String?]) throws {
        let mapping = try ColumnMapping(header: header)
        #expect([mapping.column(for: .identifier), mapping.column(for: .name),
                 mapping.column(for: .latitude), mapping.column(for: .longitude)] == expected)
    }

    @Test func overrideByExactAndNormalisedName() throws {
        let exact = try ColumnMapping(header: Self.alabama, overrides: ["uwi": "Id"])
        #expect(exact.column(for: .identifier) == "Id")
        #expect(exact.unmappedIndices.contains(Self.alabama.firstIndex(of: "API")!))
        #expect(!exact.unmappedIndices.contains(Self.alabama.firstIndex(of: "Id")!))

        let normalised = try ColumnMapping(header: Self.alabama, overrides: ["uwi": "well key", "completion_date": "first-production-date"])
        #expect(normalised.column(for: .identifier) == "WellKey")
        #expect(normalised.column(for: .completionDate) == "FirstProductionDate")
    }

    @Test func overrideMovesColumnBetweenFields() throws {
        // Tennessee's well_type feeds `type` automatically; move it to `fluid`.
        let mapping = try ColumnMapping(header: Self.tennessee, overrides: ["fluid": "well_type"])
        #expect(mapping.column(for: .fluid) == "well_type")
        #expect(mapping.column(for: .type) == nil)
        #expect(mapping.unmappedIndices == [1, 6, 13, 14, 15, 16])
        // Swap two columns in one go.
        let swapped = try ColumnMapping(header: Self.tennessee, overrides: ["name": "operator", "operator": "well_name"])
        #expect(swapped.column(for: .name) == "operator" && swapped.column(for: .operator) == "well_name")
    }

    @Test func emptyOverrideUnmaps() throws {
        let mapping = try ColumnMapping(header: Self.tennessee, overrides: ["status": "", "plug_date": ""])
        #expect(mapping.column(for: .status) == nil && mapping.column(for: .plugDate) == nil)
        let statusIndex = Self.tennessee.firstIndex(of: "well_status")!, plugIndex = Self.tennessee.firstIndex(of: "plug_date")!
        #expect(mapping.unmappedIndices == [1, 6, plugIndex, statusIndex, 13, 14, 15, 16])
        #expect(!mapping.description.contains("status "))
        #expect(mapping.description.contains("well_status"))  // kept as JSON
    }

    @Test(arguments: ["bogus", "id", "latitude"])
    func unknownFieldListsValidFields(field: String) {
        let error = #expect(throws: ImportError.self) {
            try ColumnMapping(header: Self.tennessee, overrides: [field: "county"], file: "tn.csv")
        }
        #expect(error?.code == .unknownField)
        #expect(error?.file == "tn.csv")
        let message = error?.message ?? ""
        #expect(message.contains("\"\(field)\"") && message.contains("valid fields:"))
        for valid in WellField.mappable { #expect(message.contains(valid.rawValue)) }
        #expect(message.contains("spud_date") && message.contains("kb_elevation"))
    }

    @Test func unknownColumnListsHeader() {
        let error = #expect(throws: ImportError.self) {
            try ColumnMapping(header: Self.tennessee, overrides: ["operator": "Licensee"])
        }
        #expect(error?.code == .unknownColumn)
        #expect(error?.message.contains("Licensee") == true)
        #expect(error?.message.contains(Self.tennessee.joined(separator: ", ")) == true)
    }

    @Test func headerWithoutCoordinates() throws {
        let error = #expect(throws: ImportError.self) { try ColumnMapping(header: Self.indiana, file: "in.csv") }
        #expect(error?.code == .noCoordinateColumns)
        let message = error?.message ?? ""
        #expect(message.contains("LoadOptions.coordinates.crs") && message.contains("LoadOptions.mapping[\"lat\"]"))
        #expect(error?.remedy == .mapColumns)
        #expect(message.contains("Utmx, Utmy"))
        #expect(throws: ImportError.self) { try ColumnMapping(header: Self.tennessee, overrides: ["lon": ""]) }
        // Allowed when coordinates are not required.
        let mapping = try ColumnMapping(header: Self.indiana, requireCoordinates: false)
        #expect(mapping.column(for: .latitude) == nil && mapping.column(for: .county) == "County")
        // --map names the columns.
        let mapped = try ColumnMapping(header: Self.indiana, overrides: ["lat": "y", "lon": "x"])
        #expect(mapped.column(for: .latitude) == "y" && mapped.column(for: .longitude) == "x")
    }

    @Test func normalize() {
        #expect(ColumnMapping.normalize("API WELL NUMBER") == "apiwellnumber")
        #expect(ColumnMapping.normalize("api_well_number") == ColumnMapping.normalize("ApiWellNumber"))
        #expect(ColumnMapping.normalize("API#") == "api")
        #expect(ColumnMapping.normalize("Latitude (NAD83)") == "latitudenad83")
    }
}
