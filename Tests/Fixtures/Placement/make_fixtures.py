#!/usr/bin/python3
"""Makes the small files of Tests/Fixtures/Placement: well lists written the way agencies publish them,
with the slips that used to load wells onto the wrong continent. Points are drawn (seeded) inside the
states' outlines of Data/boundaries; projected values through pyproj. Run with Debian's python3
(python3-geopandas brings shapely and pyproj):  /usr/bin/python3 Tests/Fixtures/Placement/make_fixtures.py
"""
import csv, json, os, random
from shapely.geometry import shape, Point
from shapely.ops import unary_union
from pyproj import Transformer

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "..")
counties = json.load(open(os.path.join(root, "Data", "boundaries", "us-counties-fips.geojson")))["features"]

def state(fips):
    return unary_union([shape(f["geometry"]) for f in counties if f["properties"]["STATE"] == fips and f["properties"]["COUNTY"] != "nyc"]).buffer(-0.05)

def points(fips, n, seed, south=-90, north=90):
    poly, rnd, out = state(fips), random.Random(seed), []
    w, s, e, nn = poly.bounds
    while len(out) < n:
        lon, lat = rnd.uniform(w, e), rnd.uniform(max(s, south), min(nn, north))
        if poly.contains(Point(lon, lat)):
            out.append((round(lat, 6), round(lon, 6)))
    return out

def write(name, header, rows, delimiter=","):
    path = os.path.join(here, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)

ok = points("40", 300, 1)
# Oklahoma, State = OK on every row, longitudes without their minus sign: loaded into China before.
write("ok-lost-sign.csv", ["API Number", "Well Name", "Latitude", "Longitude", "State"],
      [[f"35-{i:06d}", f"OK {i}", lat, abs(lon), "OK"] for i, (lat, lon) in enumerate(ok)])
# The same wells, right, except 4 rows that lost their sign: flagged, not refused.
write("ok-four-slips.csv", ["API Number", "Well Name", "Latitude", "Longitude", "State"],
      [[f"35-{i:06d}", f"OK {i}", lat, abs(lon) if i in (7, 70, 170, 270) else lon, "Oklahoma"] for i, (lat, lon) in enumerate(ok)])
# Oklahoma North state plane in US survey feet (EPSG:2267), loaded with --crs EPSG:32124 (metres): Virginia before.
north = points("40", 300, 2, south=35.7)
to2267 = Transformer.from_crs("EPSG:4326", "EPSG:2267", always_xy=True)
write("ok-stateplane-ftus.csv", ["API", "Lease", "X_COORD", "Y_COORD", "State"],
      [[f"35-{i:06d}", f"Lease {i}", *(round(v, 2) for v in to2267.transform(lon, lat)), "OK"] for i, (lat, lon) in enumerate(north)])
# The answer key of the state-plane file: the wells' true positions.
write("ok-stateplane-ftus-key.csv", ["API", "lat", "lon"], [[f"35-{i:06d}", lat, lon] for i, (lat, lon) in enumerate(north)])
pa = points("42", 300, 3)
# Pennsylvania with the coordinate columns' contents swapped: Antarctica before, with or without a State column.
write("pa-swapped.csv", ["Well ID", "Latitude", "Longitude", "State"], [[f"PA{i}", lon, lat, "PA"] for i, (lat, lon) in enumerate(pa)])
write("pa-swapped-no-state.csv", ["Well ID", "Latitude", "Longitude"], [[f"PA{i}", lon, lat] for i, (lat, lon) in enumerate(pa)])
# Every row swapped so that no latitude is valid: all 300 rejected, exit 0 and an empty store before.
write("ok-all-swapped.csv", ["API Number", "Latitude", "Longitude"], [[f"35-{i:06d}", lon, lat] for i, (lat, lon) in enumerate(ok)])
# Datum spellings: NAD27 written seven ways among NAD83 and WGS84 (one column turned off before).
spellings = ["NAD27", "NAD 27", "NAD-27", "NAD1927", "nad27", "North American Datum 1927", "EPSG:4267", "NAD83", "WGS84", "WGS 1984"]
tn = points("47", 200, 4)
write("datums.tsv", ["site_no", "station_nm", "dec_lat_va", "dec_long_va", "dec_coord_datum_cd"],
      [[f"{i:015d}", f"Site {i}", lat, lon, spellings[i % len(spellings)]] for i, (lat, lon) in enumerate(tn)], delimiter="\t")
# Two different lists, both named wells.csv, no identifier column: the second replaced the first before.
for folder, seed in (("a", 5), ("b", 6)):
    write(os.path.join(folder, "wells.csv"), ["Well Name", "Latitude", "Longitude", "State"],
          [[f"{folder.upper()} {i}", lat, lon, "TN"] for i, (lat, lon) in enumerate(points("47", 150, seed))])
print("written")

# An export as spreadsheets on European Windows write it: two title lines, ';' between fields, decimal
# commas, Windows-1252 punctuation (curly quotes 0x93/0x94, an en dash 0x96), a row without its trailing
# empty fields, and DMS seconds of 60.00 in a DMS column kept as an attribute.
with open(os.path.join(here, "ok-export-1252.csv"), "wb") as f:
    f.write(b"Oklahoma Corporation Commission - Well Data Export\r\nExported 2026-11-20\r\n")
    f.write(b"API;Well Name;Latitude;Longitude;State;Operator;Comment\r\n")
    for i, (lat, lon) in enumerate(ok[:40]):
        name = b"\x93Smith\x94 \x96 " + str(i).encode()
        row = [f"35-{i:06d}".encode(), name, f"{lat}".replace(".", ",").encode(), f"{lon}".replace(".", ",").encode(), b"OK",
               b"Acme \x96 Oil", b""]
        line = b";".join(row)
        if i == 5:
            line = b";".join(row[:5])  # no trailing Operator and Comment fields
        f.write(line + b"\r\n")
print("written export")

# Coordinates in one column, in the forms exports use, and degrees under X/Y headers.
def dms(value, positive, negative):
    hemisphere = positive if value >= 0 else negative
    value = abs(value)
    d = int(value); m = int((value - d) * 60); s = round(((value - d) * 60 - m) * 60, 1)
    if s >= 60: s = 59.9
    return f"{d}°{m}'{s}\"{hemisphere}"
forms = {
    "points-wkt.csv": ("geometry", lambda lat, lon: f"POINT ({lon} {lat})"),
    "points-ewkt.csv": ("geom", lambda lat, lon: f"SRID=4326;POINT({lon} {lat})"),
    "points-tuple.csv": ("Location", lambda lat, lon: f"({lat}, {lon})"),
    "points-dms.csv": ("Coordinates", lambda lat, lon: dms(lat, "N", "S") + " " + dms(lon, "E", "W")),
}
for name, (column, form) in forms.items():
    write(name, ["API", "Well Name", column, "State"], [[f"35-{i:06d}", f"OK {i}", form(lat, lon), "OK"] for i, (lat, lon) in enumerate(ok[:50])])
write("degrees-xy.csv", ["API", "Well Name", "X", "Y", "State"], [[f"35-{i:06d}", f"OK {i}", lon, lat, "OK"] for i, (lat, lon) in enumerate(ok[:50])])
print("written points")

# Tennessee wells (the first 60 of Data/real/tn-oilgas-wells.csv), one of them (line 12) moved to
# where another county's well is: still in Tennessee, outside the county its row names.
with open(os.path.join(root, "Data", "real", "tn-oilgas-wells.csv"), newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:61]
lat, lon, county = header.index("latitude"), header.index("longitude"), header.index("county")
other = next(r for r in rows[1:] if r[county] not in (body[10][county], "") and abs(float(r[lat]) - float(body[10][lat])) > 0.5)
body[10][lat], body[10][lon] = other[lat], other[lon]
write("tn-wrong-county.csv", header, body)
print("written county", body[10][county], "moved to a well of", other[county])
