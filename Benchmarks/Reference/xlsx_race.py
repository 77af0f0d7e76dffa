"""The .xlsx race of issue 60: `wells load` of a 244,292-well workbook beside the same wells' CSV
load and beside pandas.read_excel + GeoPandas writing a GeoPackage, interleaved, medians.

Usage:
  python3 -m venv /tmp/xlsx-venv && /tmp/xlsx-venv/bin/pip install -r Benchmarks/Reference/requirements.txt openpyxl
  swift build -c release --product wells
  /tmp/xlsx-venv/bin/python Benchmarks/Reference/xlsx_race.py .build/release/wells [ROUNDS] [COUNT]

The list is `wells generate --count COUNT` (the Alberta-like layout, 244,292 wells by default); the
workbook is made from it by GDAL (`ogr2ogr -f XLSX`, one sheet, numbers as numbers), so neither side
wrote the other's input. Each round runs the three commands as whole processes in turn (the order
rotates), each into a new store or GeoPackage; the table gives each one's median wall time and
the ratios. Nothing is timed inside a process.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

wells = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
count = int(sys.argv[3]) if len(sys.argv) > 3 else 244292

PEER = r"""
import sys, pandas as pd, geopandas as gpd, pyogrio
src, dst = sys.argv[1:3]
frame = pd.read_excel(src, engine="openpyxl")
points = gpd.points_from_xy(pd.to_numeric(frame["surface_longitude"], errors="coerce"), pd.to_numeric(frame["surface_latitude"], errors="coerce"))
wells = gpd.GeoDataFrame(frame, geometry=points, crs="EPSG:4326")
pyogrio.write_dataframe(wells, dst, driver="GPKG", layer="wells", use_arrow=True, layer_options={"SPATIAL_INDEX": "YES"})
print(len(wells))
"""

work = tempfile.mkdtemp(prefix="xlsx-race-")
try:
    csv = os.path.join(work, "wells.csv")
    xlsx = os.path.join(work, "wells.xlsx")
    subprocess.run([wells, "generate", "--count", str(count), "--out", csv], check=True)
    subprocess.run(["ogr2ogr", "-f", "XLSX", xlsx, csv, "-oo", "AUTODETECT_TYPE=YES", "-nln", "Wells"], check=True)
    header = open(csv).readline().strip()
    assert "surface_latitude" in header and "surface_longitude" in header, header
    peer = os.path.join(work, "peer.py")
    open(peer, "w").write(PEER)

    def run(name, k):
        out = os.path.join(work, f"{name}-{k}")
        command = {
            "wells load .xlsx": [wells, "load", xlsx, "--db", out + ".sqlite", "-q", "--format", "json"],
            "wells load .csv": [wells, "load", csv, "--db", out + ".sqlite", "-q", "--format", "json"],
            "pandas.read_excel + GeoPandas → GPKG": [sys.executable, peer, xlsx, out + ".gpkg"],
        }[name]
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start

    names = ["wells load .xlsx", "wells load .csv", "pandas.read_excel + GeoPandas → GPKG"]
    times = {name: [] for name in names}
    for k in range(rounds):
        order = names[k % 3:] + names[:k % 3]
        for name in order:
            times[name].append(run(name, k))
    medians = {name: statistics.median(times[name]) for name in names}
    print(f"{count:,} wells; CSV {os.path.getsize(csv) / 1e6:.1f} MB, workbook {os.path.getsize(xlsx) / 1e6:.1f} MB; {rounds} rounds, interleaved")
    print("| command | median s | rounds (s) |")
    print("|---|---:|---|")
    for name in names:
        print(f"| {name} | {medians[name]:.2f} | {', '.join(f'{t:.2f}' for t in times[name])} |")
    xl, cs, pd_ = medians[names[0]], medians[names[1]], medians[names[2]]
    print(f"\nxlsx load / CSV load: {xl / cs:.2f}x (target at most 2x); pandas+GeoPandas / xlsx load: {pd_ / xl:.2f}x (target at least 3x)")
finally:
    shutil.rmtree(work, ignore_errors=True)
