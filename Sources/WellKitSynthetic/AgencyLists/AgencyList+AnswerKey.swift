import Foundation

extension AgencyList {
    // MARK: - AnswerKey

    /// What a loader should find in one ``AgencyList`` file; encoded as pretty-printed JSON with sorted keys.
    ///
    /// One struct covers the three layouts: members a layout does not use are `nil` and left out of
    /// the JSON. Lines are 1-based physical line numbers of the whole file (comment lines, the
    /// header and the RDB column-format line count). `rejects`, `duplicates` and `suspects` are
    /// sorted by line.
    public struct AnswerKey: Codable, Sendable, Equatable {
        /// The identifier column, and whether its values identify the wells.
        public struct Identifier: Codable, Sendable, Equatable {
            /// The column name as in the header.
            public var column: String
            /// `true` when every value is unique (a key); `false` for a damaged column.
            public var isKey: Bool
            /// The number of distinct values, for a column that is not a key.
            public var distinct: Int?
            /// The most frequent value and how many records carry it, for a column that is not a key.
            public var mostRepeated: Repeated?
        }

        /// A value and its number of occurrences over all records, duplicates included.
        public struct Repeated: Codable, Sendable, Equatable {
            public var value: String
            public var count: Int
        }

        /// A coordinate column and how its values are written.
        public struct CoordinateColumn: Codable, Sendable, Equatable {
            /// The column name as in the header.
            public var column: String
            /// `compact DMS` (`DDMMSS.ss` / `DDDMMSS.ss`).
            public var format: String
            /// The hemisphere a value without sign or letter is in (`west`), if one is implied.
            public var hemisphere: String?
        }

        /// A record a loader should reject.
        public struct Reject: Codable, Sendable, Equatable {
            /// Why the record cannot be loaded.
            public enum Kind: String, Codable, Sendable, CaseIterable {
                /// Both coordinates are blank.
                case missingCoordinates = "missing coordinates"
            }

            public var line: Int
            public var kind: Kind
        }

        /// A record that repeats an earlier one byte for byte: the same well listed twice.
        public struct Duplicate: Codable, Sendable, Equatable {
            /// The line of the copy.
            public var line: Int
            /// The line of the earlier record it copies.
            public var sameAs: Int
        }

        /// A record whose coordinates are wrong in a way a loader can notice.
        public struct Suspect: Codable, Sendable, Equatable {
            /// The one error the record carries; rows get them in this order, in rotation.
            public enum Reason: String, Codable, Sendable, CaseIterable {
                /// The longitude lost its minus sign (`114.523456`).
                case longitudeSign = "longitude sign"
                /// One digit of the longitude's integer part is missing (`-14.523456` for `-114.523456`).
                case lostDigit = "lost digit"
                /// The latitude is negated (`-38.123456`).
                case latitudeSign = "latitude sign"
                /// The point is thousands of kilometres from every well (lat 60...70, lon -45...-30),
                /// and no sign flip, swap or lost digit explains it.
                case farFromTheOthers = "far from the others"
            }

            public var line: Int
            /// The record's identifier (`API Number`).
            public var identifier: String
            public var reason: Reason
        }

        /// A whole file read the wrong way: the slip, the options under which a load finds it (none:
        /// a load with no options), and the options that load the wells where their rows say.
        public struct Placement: Codable, Sendable, Equatable {
            public var slip: String
            /// `wells load` options that read the file wrong, such as `--crs EPSG:32108 --x X_COORD --y Y_COORD`.
            public var given: [String]
            /// `wells load` options that read it right, such as `--implied-west`.
            public var fix: [String]
        }

        /// How the text is written, as a load should name it (`export-1252`).
        public struct TextLayout: Codable, Sendable, Equatable {
            public var titleLines: Int
            /// `Windows-1252`, as ``encoding`` inferences name it.
            public var encoding: String
            public var delimiter: String
            /// `comma` or `point`.
            public var decimalMark: String
            /// The column with both coordinates.
            public var pointColumn: String
        }

        /// A well as a load should store it: its identifier and every property `wells show` prints
        /// for it (WellKit's `Well.properties`) but `id`, the source coordinates and a suspect flag:
        /// `name`, `lat`, `lon`, each detail field with a value (`spud_date`, `total_depth`, …) and
        /// `extra.COLUMN` for each unmapped column with a value. Values are text: numbers as
        /// `String(Double)` writes them (`lat` and `lon` to be compared within 1e-6), dates
        /// `yyyy-mm-dd` (or `yyyy` for a year alone), text as the store keeps it.
        public struct WellFields: Codable, Sendable, Equatable {
            public var identifier: String
            public var fields: [String: String]

            public init(identifier: String, fields: [String: String]) {
                self.identifier = identifier
                self.fields = fields
            }
        }

        /// A date column and the format a load should read it in (the summary's ``WellKit/DateColumnReport``).
        public struct DateColumn: Codable, Sendable, Equatable {
            public var column: String
            /// The field it maps to, such as `spud_date`.
            public var field: String
            /// As the summary names it: `d/m/y`, `DD-MON-YY`, `Excel serial`, `ISO and years`.
            public var format: String
            /// Its values that must not load as dates (kept as text in `extra`).
            public var notFitting: Int
        }

        /// How the text is written (`export-1252`).
        public var text: TextLayout?
        /// The date columns and how a load should read them (the date layouts).
        public var dateColumns: [DateColumn]?
        /// Every well a load should store, each with every field, in file order; nil for layouts
        /// whose key checks inferences and flags only. A loader's store must hold exactly these
        /// wells, and no other property of them (`AnswerKeyTests` checks it).
        public var wells: [WellFields]?

        /// The column naming the state each well lies in (`lost-signs`, `state-plane-feet`).
        public var stateColumn: String?
        /// How the whole file is misplaced, and its fix (`lost-signs`, `state-plane-feet`).
        public var placement: Placement?

        /// The layout's command-line name, e.g. `nwis-dms`.
        public var layout: String
        /// Data records, excluding comment lines, the header and a column-format line.
        public var records: Int
        /// Lines starting with `#` before the header (`nwis-dms`).
        public var commentLines: Int?
        /// `tab` (`nwis-dms`).
        public var delimiter: String?
        /// The identifier column.
        public var identifier: Identifier
        /// The latitude column, when not plain decimal degrees (`nwis-dms`).
        public var latitude: CoordinateColumn?
        /// The longitude column, when not plain decimal degrees (`nwis-dms`).
        public var longitude: CoordinateColumn?
        /// The column naming each row's horizontal datum (`nwis-dms`).
        public var datumColumn: String?
        /// Rows with coordinates per datum code, e.g. `NAD27` (`nwis-dms`).
        public var datums: [String: Int]?
        /// Records that copy an earlier record (`damaged-ids`).
        public var duplicates: [Duplicate]?
        /// Records a loader should reject.
        public var rejects: [Reject]
        /// Records with a suspect coordinate.
        public var suspects: [Suspect]

        /// A key for `layout` with `records` records and nothing else found yet.
        init(layout: Layout, records: Int, identifier: Identifier) {
            self.layout = layout.rawValue
            self.records = records
            self.identifier = identifier
            rejects = []
            suspects = []
        }

        /// The key as pretty-printed JSON with sorted keys, ending with a newline.
        public func jsonData() throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(self) + Data("\n".utf8)
        }

        /// Writes the key as JSON to `path`, replacing any existing file.
        public func write(toFileAt path: String) throws {
            guard FileManager.default.createFile(atPath: path, contents: try jsonData()) else {
                throw WellGeneratorError.cannotCreateFile(path: path)
            }
        }
    }
}
