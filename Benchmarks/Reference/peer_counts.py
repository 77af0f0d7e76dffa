"""The peers of `wells count`, as an analyst runs them: wells per county (a spatial join) and wells
per grid cell, with GeoPandas or DuckDB's spatial extension.

Usage:
  python3 peer_counts.py geopandas areas WELLS.csv LAT LON COUNTIES.geojson [KEY=VALUE]
  python3 peer_counts.py geopandas grid  WELLS.csv LAT LON SIZE
  python3 peer_counts.py duckdb    areas WELLS.duckdb COUNTIES.geojson [KEY=VALUE]
  python3 peer_counts.py duckdb    grid  WELLS.duckdb SIZE
  python3 peer_counts.py duckdb    make  WELLS.csv LAT LON WELLS.duckdb   (once: the table `wells` with a point per well)

Prints `name,count` (areas, by the feature's NAME) or `column,row,count` (grid) to standard output.

GeoPandas reads the CSV (pandas' pyarrow engine) and the counties (pyogrio), joins with `sjoin`
(predicate intersects: the boundary is inside, as in WellKit) and counts with `groupby`. DuckDB reads
its own database file, where the wells are already a table with a GEOMETRY column (as WellKit reads
its store), the counties with `ST_Read`, and joins with `ST_Intersects` (its spatial join operator).
`wells-bench analysis` runs both beside `wells count` (pip install -r Benchmarks/Reference/requirements.txt).
"""
import sys

engine, task = sys.argv[1], sys.argv[2]
args = sys.argv[3:]

if engine == "geopandas":
    import math
    import geopandas as gpd
    import pandas as pd

    src, lat, lon = args[0], args[1], args[2]
    frame = pd.read_csv(src, engine="pyarrow", delimiter="\t" if src.endswith((".tsv", ".txt")) else ",")
    if task == "areas":
        points = gpd.GeoDataFrame(frame[[]], geometry=gpd.points_from_xy(frame[lon], frame[lat]), crs="EPSG:4326")
        areas = gpd.read_file(args[3], engine="pyogrio")
        if len(args) > 4:
            key, value = args[4].split("=", 1)
            areas = areas[areas[key].astype(str) == value]
        joined = gpd.sjoin(points, areas[["NAME", "geometry"]], predicate="intersects")
        counts = joined.groupby("NAME").size()
        sys.stdout.write("".join(f"{name},{count}\n" for name, count in counts.items()))
    else:
        size = float(args[3])
        cells = pd.DataFrame({"column": (frame[lon] / size).apply(math.floor), "row": (frame[lat] / size).apply(math.floor)})
        counts = cells.groupby(["column", "row"]).size()
        sys.stdout.write("".join(f"{c},{r},{n}\n" for (c, r), n in counts.items()))
elif engine == "duckdb":
    import duckdb
    try:
        from duckdb_extensions import extension_importer
        extension_importer.import_extension("spatial")
    except ImportError:
        pass
    if task == "make":
        src, lat, lon, db = args
        con = duckdb.connect(db)
        con.execute("LOAD spatial")
        con.execute(f"CREATE TABLE wells AS SELECT *, ST_Point(\"{lon}\", \"{lat}\") AS geom FROM read_csv(?)", [src])
        con.execute("CREATE INDEX wells_geom ON wells USING RTREE (geom)")
        sys.exit(0)
    con = duckdb.connect(args[0], read_only=True)
    con.execute("LOAD spatial")
    if task == "areas":
        where = ""
        params = [args[1]]
        if len(args) > 2:
            key, value = args[2].split("=", 1)
            where = f"WHERE CAST(\"{key}\" AS VARCHAR) = ?"
            params.append(value)
        rows = con.execute(f"""
            WITH areas AS (SELECT NAME, geom FROM ST_Read(?) {where})
            SELECT a.NAME, count(*) FROM wells w JOIN areas a ON ST_Intersects(a.geom, w.geom) GROUP BY a.NAME ORDER BY a.NAME""", params).fetchall()
        sys.stdout.write("".join(f"{name},{count}\n" for name, count in rows))
    else:
        size = float(args[1])
        rows = con.execute("SELECT floor(ST_X(geom) / ?)::BIGINT, floor(ST_Y(geom) / ?)::BIGINT, count(*) FROM wells GROUP BY ALL", [size, size]).fetchall()
        sys.stdout.write("".join(f"{c},{r},{n}\n" for c, r, n in rows))
else:
    sys.exit(f"unknown engine {engine}")
