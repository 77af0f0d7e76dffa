"""Releases of a 244,292-well list (Benchmarks/README.md's "Releases"): the load of release 2 as a
release against a plain reload of it, `wells changes` against pygeodiff's changeset of the same two
releases as GeoPackages and DuckDB's FULL OUTER JOIN of the two CSVs, and the store's growth over
ten releases. Each release changes 2% of the wells (status, licensee, position, gone, new).

    wells generate --count 244292 --seed 1 --out r1.csv
    python3 -m venv venv && venv/bin/pip install pygeodiff duckdb==1.5.5
    venv/bin/python release-race.py path/to/release/wells

Run in the folder holding r1.csv; it writes the other releases, GeoPackages and stores beside it.
"""
import csv, os, random, shutil, statistics, subprocess, sys, time

WELLS = sys.argv[1]
ROUNDS = 5
FIELDS = None


def read(path):
    global FIELDS
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        FIELDS = reader.fieldnames
        return list(reader)


def write(path, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def next_release(rows, seed):
    """2% of the wells changed: 0.8% status, 0.4% licensee, 0.4% moved 20-400 m, 0.2% gone, 0.2% new."""
    rng = random.Random(seed)
    rows = [dict(r) for r in rows]
    n = len(rows)
    picked = rng.sample(range(n), int(n * 0.018))
    statuses = sorted({r["status"] for r in rows[:2000]})
    cuts = [int(n * x) for x in (0.008, 0.012, 0.016)]
    for k in picked[:cuts[0]]:
        rows[k]["status"] = rng.choice([s for s in statuses if s != rows[k]["status"]])
    for k in picked[cuts[0]:cuts[1]]:
        rows[k]["licensee"] = "NEW OPERATOR %d LTD." % rng.randrange(50)
    for k in picked[cuts[1]:cuts[2]]:
        rows[k]["surface_latitude"] = "%.6f" % (float(rows[k]["surface_latitude"]) + rng.uniform(20, 400) / 111_000 * rng.choice([-1, 1]))
    gone = set(picked[cuts[2]:])
    kept = [r for k, r in enumerate(rows) if k not in gone]
    for j in range(len(gone)):
        new = dict(rows[rng.randrange(n)])
        new["uwi"] = "NEW-%d-%06d" % (seed, j)
        kept.append(new)
    return kept


def timed(arguments, **kwargs):
    start = time.perf_counter()
    subprocess.run(arguments, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - start


def median_line(name, values):
    return f"{name}: median {statistics.median(values):.3f} s of {[round(v, 3) for v in values]}"


release1 = read("r1.csv")
if not os.path.exists("r2.csv"):
    write("r2.csv", next_release(release1, 2))
release2 = read("r2.csv")
changed = sum(1 for a, b in zip(release1, release2) if a != b)
print(f"releases: r1 {len(release1):,} wells, r2 {len(release2):,} wells ({os.path.getsize('r2.csv') / 1e6:.1f} MB)")

for name, release in (("plain.sqlite", False), ("release.sqlite", True)):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(name + suffix):
            os.remove(name + suffix)
    subprocess.run([WELLS, "load", "r1.csv", "--db", name, "-q"] + (["--release", "--source", "bench"] if release else []), check=True, stdout=subprocess.DEVNULL)

# Release 2 loaded as a release against the same file reloaded plainly, each into a copy of its store, interleaved.
plain, release = [], []
for _ in range(ROUNDS):
    shutil.copy("plain.sqlite", "p.sqlite")
    plain.append(timed([WELLS, "load", "r2.csv", "--db", "p.sqlite", "-q"]))
    shutil.copy("release.sqlite", "q.sqlite")
    release.append(timed([WELLS, "load", "r2.csv", "--db", "q.sqlite", "-q", "--release", "--source", "bench"]))
print(median_line("plain reload of r2", plain))
print(median_line("release load of r2", release))
print(f"release / plain reload: {statistics.median(release) / statistics.median(plain):.2f}")

# The changes between the two releases, three ways.
changes = [timed([WELLS, "changes", "--db", "q.sqlite", "--format", "csv"]) for _ in range(ROUNDS)]
rows = subprocess.run([WELLS, "changes", "--db", "q.sqlite", "--format", "csv"], check=True, capture_output=True, text=True).stdout.count("\n") - 1
print(median_line(f"wells changes (csv, {rows:,} rows)", changes))

ids = {}
for r in release1 + release2:
    ids.setdefault(r["uwi"], len(ids) + 1)
for number, rows_ in ((1, release1), (2, release2)):
    gpkg = f"r{number}.gpkg"
    if not os.path.exists(gpkg):
        with open(f"r{number}-fid.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["fid"] + FIELDS, lineterminator="\n")
            writer.writeheader()
            for r in rows_:
                writer.writerow(dict(r, fid=ids[r["uwi"]]))
        subprocess.run(["ogr2ogr", "-f", "GPKG", gpkg, f"r{number}-fid.csv", "-oo", "X_POSSIBLE_NAMES=surface_longitude", "-oo", "Y_POSSIBLE_NAMES=surface_latitude",
                        "-oo", "AUTODETECT_TYPE=YES", "-a_srs", "EPSG:4326", "-nln", "wells"], check=True)
import pygeodiff
geodiff = pygeodiff.GeoDiff()
pygeodiffs = []
for _ in range(ROUNDS):
    if os.path.exists("r1-r2.diff"):
        os.remove("r1-r2.diff")
    start = time.perf_counter()
    geodiff.create_changeset("r1.gpkg", "r2.gpkg", "r1-r2.diff")
    pygeodiffs.append(time.perf_counter() - start)
print(median_line(f"pygeodiff create_changeset ({geodiff.changes_count('r1-r2.diff'):,} changes)", pygeodiffs))

import duckdb
columns = [c for c in FIELDS if c != "uwi"]
differs = " OR ".join(f'a."{c}" IS DISTINCT FROM b."{c}"' for c in columns)
query = f"""SELECT coalesce(a.uwi, b.uwi) AS uwi, a.uwi IS NULL AS new, b.uwi IS NULL AS gone, a.*, b.*
            FROM read_csv('r1.csv', all_varchar = true) a FULL OUTER JOIN read_csv('r2.csv', all_varchar = true) b ON a.uwi = b.uwi
            WHERE a.uwi IS NULL OR b.uwi IS NULL OR {differs}"""
duck = []
for _ in range(ROUNDS):
    start = time.perf_counter()
    found = duckdb.connect().execute(query).fetchall()
    duck.append(time.perf_counter() - start)
print(median_line(f"DuckDB FULL OUTER JOIN of the CSVs ({len(found):,} rows)", duck))
print(f"wells changes / pygeodiff: {statistics.median(changes) / statistics.median(pygeodiffs):.3f}; wells changes / DuckDB: {statistics.median(changes) / statistics.median(duck):.3f}")

# Ten releases of 2% changes each, against one release: the store's size after VACUUM.
def size(path):
    subprocess.run([WELLS, "optimize", "--vacuum", "--db", path], check=True, stdout=subprocess.DEVNULL)
    return os.path.getsize(path)


shutil.copy("release.sqlite", "ten.sqlite")
one = size("release.sqlite")
rows_ = release1
for number in range(2, 11):
    rows_ = next_release(rows_, number)
    write("rn.csv", rows_)
    subprocess.run([WELLS, "load", "rn.csv", "--db", "ten.sqlite", "-q", "--release", "--source", "bench"], check=True, stdout=subprocess.DEVNULL)
ten = size("ten.sqlite")
print(f"store after one release {one / 1e6:.1f} MB, after ten {ten / 1e6:.1f} MB: +{(ten - one) * 100 / one:.1f}%")
