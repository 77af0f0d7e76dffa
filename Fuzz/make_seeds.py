#!/usr/bin/env python3
"""Writes seed inputs for the fuzz targets from the real well lists in Data/real and the manual (Docs/manual.md).

Usage: python3 Fuzz/make_seeds.py Fuzz/.build/work && bash Fuzz/run.sh --merge
(the merge keeps, in Fuzz/corpus/<target>/, the smallest set of inputs that covers what they all cover)
"""
import csv, io, os, random, re, sys

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "Data", "real")
out = sys.argv[1]
rng = random.Random(1)

def write(target, name, payload):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(payload[:4000])

files = sorted(f for f in os.listdir(data) if f.endswith((".csv", ".tsv")))
values = {"number": set(), "date": set(), "dms": set()}
for name in files:
    raw = open(os.path.join(data, name), "rb").read()
    lines = raw.split(b"\n")
    delimiter = b"\t" if name.endswith(".tsv") else b","
    sel = {b",": 0, b"\t": 1}[delimiter]
    # The head (comments, header, first records), three middles from a line start, one from mid-line.
    write("csv", f"{name}-head", bytes([sel]) + b"\n".join(lines[:12])[:1500])
    write("csv", f"{name}-head-detect", bytes([4 + 128]) + b"\n".join(lines[:12])[:1500])
    for k in range(3):
        at = rng.randrange(len(lines) - 8)
        write("csv", f"{name}-mid{k}", bytes([sel + 5 * rng.randrange(5)]) + b"\n".join(lines[at:at + 6])[:1500])
    at = rng.randrange(len(raw) - 1000)
    write("csv", f"{name}-cut", bytes([sel + 5 * rng.randrange(5)]) + raw[at:at + 700])
    # Values of every column, to pick numbers, dates and angles from.
    text = raw.decode("utf-8", "replace")
    rows = [l for l in text.split("\n") if l and not l.startswith("#")]
    reader = csv.reader(io.StringIO("\n".join(rows[:400])), delimiter=delimiter.decode())
    for row in reader:
        for v in row:
            v = v.strip()
            if re.fullmatch(r"[-+]?[\d,]*\.?\d+([eE][-+]?\d+)?", v): values["number"].add(v)
            if re.search(r"\d{4}-\d\d-\d\d|\d+/\d+/\d{4}|^\d{8}$", v): values["date"].add(v)
            if re.fullmatch(r"\d{5,7}(\.\d+)?", v): values["dms"].add(v)

for kind, vs in values.items():
    for k, v in enumerate(sorted(vs)[:25] + rng.sample(sorted(vs), min(15, len(vs)))):
        write("values", f"{kind}-{k}", v.encode())
for k, v in enumerate(["36°54'1.2\"N", "-87°50'13.67\"", "36d54m1.2s N", "N 36 54 1.2", "87 50 13.67 W", "36:54:01.2",
                       "875013.67", "0864032.17", "344512.3", "1,234.5", "-85.26", "2001/01/12", "1/12/2001 00:00:00",
                       "20010112", "2001-01-12T00:00:00", "1e5", "2.5E-3"]):
    write("values", f"hand-{k}", v.encode())

readme = open(os.path.join(here, "..", "Docs", "manual.md"), encoding="utf-8").read()
wheres = re.findall(r"--where (?:'([^']*)'|\"([^\"]*)\")", readme)
preds = [a or b for a, b in wheres] + [
    'status = Abandoned and operator contains[cd] "acme"', "total_depth between 1000 and 2000",
    "status in (Abandoned, 'Plugged', \"Dry\")", "not (spud_date is null) or plug_date is not null",
    "detail.spud_date >= 2001-01-01 and lat > 36.1 and lon <= -85", "name beginswith[c] 'SMITH' or name endswith[d] 'Well'",
    "uwi = 41-133-21968", "id != 3 and (county = Lamar or county == 'Hale') and not type <> GAS",
    "kb_elevation < 1e3 and ground_elevation > -5", "spud_date < 01/12/2001", "total_depth > 2,000"]
for k, p in enumerate(preds):
    write("predicate", f"p{k}", p.encode())

geo = ["-90.1,35.0,-89.9,35.2", "-114.2,50.9,-113.9,51.2", "170,-10,-170,10", "36.16,-85.50", "51.05,-114.07",
       " 36.16 , -85.5 ", "2km", "500m", "1.5mi", "0", "250", "detail.spud_date:desc", "name", "total_depth:asc",
       "pin.name:descending", "-180,-90,180,90", "1e-05,0,0,1e-05"]
for k, g in enumerate(geo):
    write("geoargs", f"g{k}", g.encode())

# Hostile shapes whose cost once grew faster than their size (issue 31): only quotes, one line with
# no break, a huge quoted field, many columns. The first byte picks the delimiter and chunk size.
write("csv", "hostile-only-quotes", bytes([0]) + b'"' * 250)
write("csv", "hostile-one-line", bytes([5]) + b"x" * 250)
write("csv", "hostile-huge-quoted-field", bytes([10]) + b'uwi,name,lat,lon\nW1,"' + b"n" * 200 + b'",50.1,-114.2\n')
write("csv", "hostile-many-columns", bytes([15]) + b",".join(b"c%d" % i for i in range(60))[:200] + b"\n" + b",x" * 20 + b"\n")
