#!/usr/bin/python3
"""Makes the small files of Tests/Fixtures/Antimeridian from the real lists of Data/real: lists around
the world (across the antimeridian, longitudes written 0-360) and projected lists with nothing, or
something, to judge their CRS by. Run with Debian's python3 (python3-geopandas brings pyproj; openpyxl
reads the Alaska workbook):  /usr/bin/python3 Tests/Fixtures/Antimeridian/make_fixtures.py
"""
import csv, os
import openpyxl
from pyproj import Transformer

here = os.path.dirname(os.path.abspath(__file__))
real = os.path.join(here, "..", "..", "..", "Data", "real")

def write(name, header, rows, delimiter=",", before=""):
    with open(os.path.join(here, name), "w", newline="") as f:
        f.write(before)
        w = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)

# Alaska (AOGCC's orphan well list, the workbook's one sheet as published): the 36 rows whose
# coordinates are a "lat, lon" pair (the 9 with `unknown` or a legal description and the footnote row
# dropped), and 4 wells on Attu (Aleutians West, rightly east of the antimeridian, unsigned), each
# with an API number of the borough (50-016). Written twice: as published, and with the minus signs
# lost (every longitude unsigned), whose fix is --implied-west.
sheet = openpyxl.load_workbook(os.path.join(real, "ak-aogcc-orphan-wells.xlsx"), read_only=True).worksheets[0]
import datetime
def cell(v):  # as the workbook shows it: its dates as yyyy/mm/dd
    return "" if v is None else v.strftime("%Y/%m/%d") if isinstance(v, datetime.datetime) else str(v)
rows = [[cell(v) for v in r] for r in sheet.iter_rows(values_only=True)]
header, body = rows[0], rows[1:]
coordinates = header.index("Surface Location Coordinates (NAD 83)")
readable = [r for r in body if r[coordinates].count(",") == 1 and r[coordinates].replace(",", "").replace(".", "").replace("-", "").replace(" ", "").isdigit()]
attu = [["Attu Test %d" % (k + 1), "Synthetic Test Operator", "900-%03d" % (k + 1), "50-016-9000%d-00-00" % (k + 1), "1944/0%d/01" % (k + 1),
         "Attu Island, AK", "%s, %s" % p, "Federal"] for k, p in enumerate([("52.90", "173.20"), ("52.85", "173.05"), ("52.88", "172.90"), ("52.82", "173.30")])]
right = readable + attu
write("ak-attu.csv", header, right)
write("ak-attu-lost-signs.csv", header, [r[:coordinates] + [r[coordinates].replace("-", "")] + r[coordinates + 1:] for r in right])

# Colorado (ECMC's orphaned wells): every tenth row. Its `geometry` is WKT of NAD83 / UTM zone 13N
# metres (EPSG:26913), which Colorado uses statewide, though the zone ends at 108°W and the state at
# 109.05°W.
with open(os.path.join(real, "co-ecmc-orphan-wells.csv"), newline="") as f:
    co = list(csv.reader(f))
co_header, co_rows = co[0], co[1:][::10]
write("co-tenth.csv", co_header, co_rows)
# Without Latitude/Longitude, as an ArcGIS export of the layer writes it: the points alone.
keep = [co_header.index(c) for c in ["LocationID", "API", "Project", "Status", "geometry"]]
write("co-geometry.csv", [co_header[k] for k in keep], [[r[k] for k in keep] for r in co_rows])
# The same with a State column (CO on every row), which judges the candidates.
write("co-geometry-state.csv", [co_header[k] for k in keep] + ["State"], [[r[k] for k in keep] + ["CO"] for r in co_rows])
# State-plane feet with no place column: Latitude/Longitude (NAD83, EPSG:4269) to NAD83 / Colorado
# Central (ftUS) (EPSG:2232), to 0.01 ft, in X_COORD/Y_COORD, and no Latitude, Longitude or geometry.
to_feet = Transformer.from_crs("EPSG:4269", "EPSG:2232", always_xy=True)
feet = []
for r in co_rows:
    x, y = to_feet.transform(float(r[1]), float(r[0]))
    feet.append([r[co_header.index("LocationID")], r[co_header.index("API")], r[co_header.index("Project")], r[co_header.index("Status")],
                 "%.2f" % x, "%.2f" % y])
write("co-stateplane-ftus.csv", ["LocationID", "API", "Project", "Status", "X_COORD", "Y_COORD"], feet)

# USGS NWIS Hawaii/Pacific: every tenth site with coordinates (Hawaii, Guam, Samoa, the Marshall
# Islands, Micronesia: both sides of the antimeridian), as published, and with its longitudes
# written 0-360 east (Hawaii's -157.8 as 202.2; Guam's 144.8 stays), as ocean and climate data write them.
with open(os.path.join(real, "usgs-nwis-hi-pacific-gw-sites.tsv"), newline="") as f:
    lines = f.read().split("\n")
nwis = list(csv.reader(lines[1:], delimiter="\t"))
nwis_header, sites = nwis[0], [r for r in nwis[1:] if len(r) == len(nwis[0]) and r[4].strip()][::10]
lon = nwis_header.index("dec_long_va")
write("nwis-pacific-tenth.tsv", nwis_header, sites, delimiter="\t", before="#\n")
def east(text):
    value = float(text)
    return text if value >= 0 else "%.8f" % (value + 360)
write("nwis-pacific-0-360.tsv", nwis_header, [r[:lon] + [east(r[lon])] + r[lon + 1:] for r in sites], delimiter="\t", before="#\n")
