import Foundation
import WellKit

/// The psql references of `wells-bench postgis`: the CSV split into COPY files, and the scripts that load them.
extension PostGISBenchmark {
    /// The psql references' scripts, and the rows of the CSV split they copy.
    struct Reference {
        /// The one-transaction script, for `psql -f`.
        var script: String
        /// The two-connection run: the bash script of ``PostGISBenchmark/twoConnections``, then its SQL
        /// scripts (pins, details, the keys between them); bash takes the database URL before those.
        var twoConnections: [String]
        var rows: Int
    }

    /// Splits the CSV into the COPY files of the psql references and writes their scripts, with the details
    /// columns and types of `database`, which WellKit loaded, and the column mapping of its load.
    ///
    /// The same statements make both: the one-transaction script, and the three of the two-connection
    /// run, which copies and indexes pins on one connection and details on another, at once, each
    /// committed, then adds the foreign keys between them. That run is not atomic (a failure leaves
    /// half a store); it is the floor of what a load on two connections could take, for comparison.
    func prepareReference(from database: String, summary: LoadOutput) async throws -> Reference {
        let pins = directory.appendingPathComponent("pins.tsv").path, details = directory.appendingPathComponent("details.tsv").path
        let columns = try await postgres.psql(database, """
            SELECT quote_ident(a.attname), format_type(a.atttypid, a.atttypmod),
                   CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation THEN quote_ident(c.collname) ELSE '' END,
                   a.attnotnull, a.attname
            FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_collation c ON c.oid = a.attcollation
            WHERE a.attrelid = 'details'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """)
        guard columns.first?.last == "pin_id", columns.allSatisfy({ $0.count == 5 }) else {
            throw StoreError(.invalidArgument, "unexpected details table in \(database): \(columns.prefix(3))")
        }
        let declarations = columns.map { column -> String in
            if column[4] == "pin_id" { return "  pin_id bigint NOT NULL" }
            return "  \(column[0]) \(column[1])" + (column[2].isEmpty ? "" : " COLLATE \(column[2])") + (column[3] == "t" ? " NOT NULL" : "")
        }
        let detailNames = columns.dropFirst().map { $0[4] }
        let mapping = String(decoding: try JSONEncoder().encode(summary.mapping), as: UTF8.self)
        let names = String(decoding: try JSONEncoder().encode(detailNames), as: UTF8.self)
        Self.progress("splitting the CSV into COPY files for the psql references (untimed)")
        let split = try await Tools.run(python, ["-c", Self.splitScript, csv, mapping, names, pins, details])
        guard let count = Int(split.out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw StoreError(.invalidArgument, "the CSV split printed no row count: \(split.out.prefix(200)) \(split.err.prefix(300))")
        }
        let pinsWork = """
            CREATE TABLE pins(
              id bigint NOT NULL,
              name text COLLATE "C",
              lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
              lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
              geom geometry(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)) STORED);
            \\copy pins(id, name, lat, lon) FROM '\(pins)'
            ALTER TABLE pins ADD PRIMARY KEY (id);
            CREATE INDEX pins_geom ON pins USING gist(geom);
            """
        let detailsWork = """
            CREATE TABLE loads(id bigint PRIMARY KEY);
            INSERT INTO loads VALUES (1);
            CREATE TABLE details(
            \(declarations.joined(separator: ",\n")));
            \\copy details FROM '\(details)'
            ALTER TABLE details ALTER COLUMN extra SET STATISTICS 0;
            ALTER TABLE details ADD PRIMARY KEY (pin_id);
            CREATE UNIQUE INDEX details_uwi ON details(uwi);
            """
        let keys = """
            ALTER TABLE details ADD CONSTRAINT details_pin_id_fkey FOREIGN KEY (pin_id) REFERENCES pins(id) ON DELETE CASCADE;
            ALTER TABLE details ADD CONSTRAINT details_load_id_fkey FOREIGN KEY (load_id) REFERENCES loads(id);
            """
        let scripts = [("reference.sql", "BEGIN;\n\(pinsWork)\n\(detailsWork)\n\(keys)\nANALYZE pins;\nANALYZE details;\nCOMMIT;\n"),
                       ("reference-pins.sql", "BEGIN;\n\(pinsWork)\nCOMMIT;\n"),
                       ("reference-details.sql", "BEGIN;\n\(detailsWork)\nCOMMIT;\n"),
                       ("reference-keys.sql", "BEGIN;\n\(keys)\nCOMMIT;\n"),
                       ("reference-two-connections.sh", Self.twoConnections)]
        let paths = try scripts.map { name, text in
            let path = directory.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        return Reference(script: paths[0], twoConnections: [paths[4]] + paths[1...3], rows: count)
    }

    /// Bash, with the database URL and the SQL scripts of ``Reference/twoConnections``: pins and details
    /// at once on two psql connections, then the keys, then ANALYZE of the two at once, as WellKit's load does it.
    static let twoConnections = #"""
        set -e
        psql() { command psql -X -q -v ON_ERROR_STOP=1 -d "$1" "${@:2}"; }
        psql "$1" -f "$2" & pins=$!
        psql "$1" -f "$3" & details=$!
        wait $pins; wait $details
        psql "$1" -f "$4"
        psql "$1" -c "ANALYZE pins" & pins=$!
        psql "$1" -c "ANALYZE details"
        wait $pins
        """#

    /// Python: CSV → pins.tsv (id, name, lat, lon; ids 1..n) and details.tsv (pin_id, then the details
    /// columns named in argv[3]: mapped CSV columns, `extra` the unmapped ones as JSON, `load_id` 1,
    /// others null), in COPY text format. Prints the rows.
    static let splitScript = #"""
        import csv, json, sys
        src, mapping, columns, pins_out, details_out = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
        def esc(v):
            if v is None or v == "":
                return "\\N"
            return v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
        n = 0
        with open(src, newline="", encoding="utf-8-sig") as f, open(pins_out, "w", encoding="utf-8") as p, open(details_out, "w", encoding="utf-8") as d:
            r = csv.reader(f)
            header = next(r)
            pos = {name: k for k, name in enumerate(header)}
            used = set(mapping.values())
            extra = [(name, k) for k, name in enumerate(header) if name not in used]
            def at(field):
                return pos.get(mapping.get(field, ""))
            name_k, lat_k, lon_k = at("name"), at("lat"), at("lon")
            plan = []
            for c in columns:
                if c == "extra":
                    plan.append(("extra", None))
                elif c == "load_id":
                    plan.append(("const", "1"))
                elif at(c) is not None:
                    plan.append(("col", at(c)))
                else:
                    plan.append(("const", "\\N"))
            for row in r:
                n += 1
                get = lambda k: row[k] if k is not None and k < len(row) else ""
                p.write("%d\t%s\t%s\t%s\n" % (n, esc(get(name_k)), esc(get(lat_k)), esc(get(lon_k))))
                out = [str(n)]
                for kind, k in plan:
                    if kind == "col":
                        out.append(esc(get(k)))
                    elif kind == "extra":
                        obj = {name: row[j] for name, j in extra if j < len(row) and row[j] != ""}
                        out.append(esc(json.dumps(obj, ensure_ascii=False)) if obj else "\\N")
                    else:
                        out.append(k)
                d.write("\t".join(out) + "\n")
        print(n)
        """#
}
