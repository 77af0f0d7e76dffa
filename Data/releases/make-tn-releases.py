#!/usr/bin/env python3
"""Makes releases 2 and 3 of Tennessee's well list (Data/real/tn-oilgas-wells.csv, release 1 as
published) and the answer key of what changed in each, for WellKit's release tests.

Release 2: 200 wells gone, 120 new, 200 statuses set, 150 categories (an unmapped column) and 80
operators changed, 60 positions corrected by 20 to 400 m.
Release 3: every identifier re-spelled without its dashes (41-133-21968 -> 4113321968), every
position converted from NAD83 to NAD27 (the file says nothing of it), 40 of release 2's gone wells
back, 50 gone, 30 new, 100 statuses changed, 30 positions corrected by 20 to 400 m.

Run from the repository's root, once: it needs PROJ's cs2cs and NOAA's NADCON grid
(us_noaa_conus.tif, from PROJ-data's us_noaa/), which the tests do not; give the folder holding it:
    python3 Data/releases/make-tn-releases.py GRID_FOLDER
It writes Data/releases/tn-release-2.csv.gz, tn-release-3.csv.gz and tn-releases-key.json.
"""
import csv, gzip, io, json, math, os, random, subprocess, sys

if len(sys.argv) != 2:
    sys.exit("usage: make-tn-releases.py GRID_FOLDER (the folder holding us_noaa_conus.tif)")
grids = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
source = os.path.join(here, "..", "real", "tn-oilgas-wells.csv")
with open(source, newline="", encoding="utf-8") as f:
    reader = csv.DictReader(f)
    header = reader.fieldnames
    release1 = list(reader)

rng = random.Random(20261208)
STATUSES = ["Plugged", "Orphaned", "Active", "Shut In"]
OPERATORS = ["Appalachian Basin Operating LLC", "Cumberland Plateau Energy", "Tennessee Orphan Well Program"]


def moved(row, meters, bearing):
    """The row's position moved by `meters` toward `bearing` degrees (on the sphere, to 1e-8 degrees)."""
    lat, lon = float(row["latitude"]), float(row["longitude"])
    north, east = meters * math.cos(math.radians(bearing)), meters * math.sin(math.radians(bearing))
    lat2 = lat + math.degrees(north / 6371008.8)
    lon2 = lon + math.degrees(east / (6371008.8 * math.cos(math.radians(lat))))
    return "%.8f" % lat2, "%.8f" % lon2


def new_well(template, serial):
    row = dict(template)
    row["api_num"] = "41-%s-9%04d" % (template["api_num"][3:6], serial)
    row["other_id"] = ""
    row["well_name"] = "New Well #%d" % serial
    row["latitude"], row["longitude"] = moved(template, 500 + serial, rng.uniform(0, 360))
    row["spud_date"] = row["plug_date"] = ""
    row["wellwiki"] = "https://wellwiki.org/wiki/" + row["api_num"]
    return row


def release(previous, *, gone, new, statuses, categories, operators, moves, serial):
    """The next release: `previous` less `gone` wells, with changes, plus `new` wells; its key."""
    rows = [dict(r) for r in previous]
    key = {"gone": [], "new": [], "back": [], "changed": [], "moved": []}
    picked = rng.sample(range(len(rows)), gone + statuses + categories + operators + moves)
    cut = iter(picked)
    gone_ids = {next(cut) for _ in range(gone)}
    for _ in range(statuses):
        k = next(cut)
        old = rows[k]["well_status"]
        rows[k]["well_status"] = rng.choice([s for s in STATUSES if s != old])
        key["changed"].append([k, "status", old or None, rows[k]["well_status"]])
    for _ in range(categories):
        k = next(cut)
        old = rows[k]["ft_category"]
        rows[k]["ft_category"] = "Production Well" if old != "Production Well" else "Orphaned / Abandoned / Unverified Plug"
        key["changed"].append([k, "extra.ft_category", old or None, rows[k]["ft_category"]])
    for _ in range(operators):
        k = next(cut)
        old = rows[k]["operator"]
        rows[k]["operator"] = rng.choice([o for o in OPERATORS if o != old])
        key["changed"].append([k, "operator", old or None, rows[k]["operator"]])
    for _ in range(moves):
        k = next(cut)
        meters = rng.uniform(20, 400)
        rows[k]["latitude"], rows[k]["longitude"] = moved(rows[k], meters, rng.uniform(0, 360))
        key["moved"].append([k, round(meters, 3)])
    key["gone"] = [rows[k]["api_num"] for k in sorted(gone_ids)]
    for entry in key["changed"] + key["moved"]:
        entry[0] = rows[entry[0]]["api_num"]
    kept = [r for k, r in enumerate(rows) if k not in gone_ids]
    added = [new_well(rows[rng.randrange(len(rows))], serial + n) for n in range(new)]
    key["new"] = [r["api_num"] for r in added]
    return kept + added, key, [r for k, r in enumerate(rows) if k in gone_ids]


release2, key2, gone2 = release(release1, gone=200, new=120, statuses=200, categories=150, operators=80, moves=60, serial=1)
release3, key3, gone3 = release(release2, gone=50, new=30, statuses=100, categories=0, operators=0, moves=30, serial=500)
back = gone2[:40]
release3 += back
key3["back"] = [r["api_num"] for r in back]

# Release 3 in NAD27, as an agency that changed its datum and did not say so would publish it.
points = "".join("%s %s\n" % (r["latitude"], r["longitude"]) for r in release3)
out = subprocess.run(["cs2cs", "-d", "8", "EPSG:4269", "EPSG:4267"], input=points, capture_output=True, text=True, check=True,
                     env=dict(os.environ, PROJ_DATA=grids + ":/usr/share/proj", PROJ_NETWORK="OFF")).stdout.split("\n")
for r, line in zip(release3, out):
    lat, lon = line.split()[:2]
    r["latitude"], r["longitude"] = lat, lon
shift = abs(float(out[0].split()[0]) - float(points.split("\n")[0].split()[0]))
assert shift > 1e-5, "cs2cs did not use the NADCON grid: give the folder holding us_noaa_conus.tif"


def respell(identifier):
    return identifier.replace("-", "")


for r in release3:
    r["api_num"] = respell(r["api_num"])
# Gone wells are gone under the identifiers release 2 gave them; the rest are listed re-spelled.
for name in ("new", "back"):
    key3[name] = [respell(i) for i in key3[name]]
for entry in key3["changed"] + key3["moved"]:
    entry[0] = respell(entry[0])
key3["respelled"] = len(release3) - len(key3["new"]) - len(key3["back"])

for number, rows in ((2, release2), (3, release3)):
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    with gzip.GzipFile(os.path.join(here, "tn-release-%d.csv.gz" % number), "wb", mtime=0) as f:
        f.write(text.getvalue().encode("utf-8"))
with open(os.path.join(here, "tn-releases-key.json"), "w") as f:
    json.dump({"2": key2, "3": key3}, f, indent=1, sort_keys=True)
    f.write("\n")
print("release 2:", len(release2), "wells; release 3:", len(release3), "wells")
