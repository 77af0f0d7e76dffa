#!/usr/bin/env python3
"""Makes the small files of Tests/Fixtures/AgencyFiles from the real lists in Data/real, the way
spreadsheets and agencies write them (issue 60's table). Needs openpyxl (in a venv:
python3 -m venv /tmp/venv && /tmp/venv/bin/pip install openpyxl; then /tmp/venv/bin/python make_fixtures.py).

- fl-orphan-wells.csv: Florida's first sheet as a spreadsheet saves it as CSV (the header's seven
  blank cells over the side table kept blank, numbers as the workbook holds them).
- fl-orphan-wells-repeated.csv: the same, the side table's cells named as Florida's second sheet
  names them (UWI, Company, Well Name, COUNTY, Lat, Long): UWI and COUNTY repeated.
- ak-aogcc-orphan-wells.csv: Alaska's workbook as Excel saves it as CSV: dates as the cells show
  them (m/d/yyyy, or yyyy-mm-dd where the cell says so), years alone as numbers, the footnote row.
- co-location-pair.csv: Colorado's first 40 wells as `LocationID,Location`, the location a quoted
  "lat, lon" pair (a two-column file).
- co-excel-guarded.csv: Colorado's first 60 wells as an Excel export guards its API numbers, with
  the state code and the suffix: ="05-125-11325-00-00" (empty where Colorado's list has none);
  every eighth LocationID, the identifier, guarded too (="310932").
- co-api-scientific.csv: the same 60 wells whose 14-digit API a spreadsheet turned into a number
  and shows in scientific notation (5.12511E+12), without LocationID.
- nwis-pa-depths-ft.tsv: the first 60 sites of NWIS's Pennsylvania site file, its comment lines,
  header and format line as published (well_depth_va, hole_depth_va and alt_va in feet).
- nwis-pa-depths-m.csv: the same sites as a list in metres: `Site ID` prefixed M-, `Well Depth (m)`
  and `Elevation (m)` the feet × 0.3048 to 0.01 m.
"""
import csv, datetime, os
import openpyxl

here = os.path.dirname(os.path.abspath(__file__))
real = os.path.join(here, "..", "..", "..", "Data", "real")

def write(name, rows, delimiter=",", crlf=True):
    with open(os.path.join(here, name), "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=delimiter, lineterminator="\r\n" if crlf else "\n").writerows(rows)

def cell_text(cell):
    v = cell.value
    if v is None: return ""
    if isinstance(v, datetime.datetime):
        fmt = (cell.number_format or "").lower()
        return v.strftime("%Y-%m-%d") if fmt.startswith("yyyy") else f"{v.month}/{v.day}/{v.year}"
    if isinstance(v, float) and v.is_integer(): return str(int(v))
    return str(v)

fl = openpyxl.load_workbook(os.path.join(real, "fl-orphan-wells.xlsx")).worksheets[0]
rows = [[cell_text(c) for c in row] for row in fl.iter_rows()]
rows = [r for r in rows if any(r)]
write("fl-orphan-wells.csv", rows)
named = list(rows[0])
side = ["UWI", "Company", "Well Name", "COUNTY", "Lat", "Long"]
named[15:21] = side
write("fl-orphan-wells-repeated.csv", [named] + rows[1:])

ak = openpyxl.load_workbook(os.path.join(real, "ak-aogcc-orphan-wells.xlsx")).worksheets[0]
rows = [[cell_text(c) for c in row] for row in ak.iter_rows()]
write("ak-aogcc-orphan-wells.csv", [r for r in rows if any(r)])

co = list(csv.reader(open(os.path.join(real, "co-ecmc-orphan-wells.csv"), encoding="utf-8-sig")))
head, body = co[0], co[1:]
col = {n: i for i, n in enumerate(head)}
write("co-location-pair.csv", [["LocationID", "Location"]]
      + [[r[col["LocationID"]], f'{r[col["Latitude"]]}, {r[col["Longitude"]]}'] for r in body[:40]])

def api14(api): return "05-" + api + "-00-00"
with open(os.path.join(here, "co-excel-guarded.csv"), "w", newline="", encoding="utf-8") as f:
    f.write("Latitude,Longitude,Project,Status,LocationID,API\r\n")
    for k, r in enumerate(body[:60]):
        project = r[col["Project"]]
        project = f'"{project}"' if "," in project or '"' in project else project
        location = f'="{r[col["LocationID"]]}"' if k % 8 == 0 else r[col["LocationID"]]
        guarded_api = '="' + api14(r[col["API"]]) + '"' if r[col["API"]] else ""
        f.write(f'{r[col["Latitude"]]},{r[col["Longitude"]]},{project},{r[col["Status"]]},{location},{guarded_api}\r\n')

def scientific(api):
    # Excel's General format shows a 14-digit number in a narrow column with 6 significant digits: 5.12511E+12
    s = "%.5E" % float("05" + api.replace("-", "") + "0000")
    mantissa, exponent = s.split("E")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}E+{int(exponent):02d}"
write("co-api-scientific.csv", [["Latitude", "Longitude", "Project", "Status", "API"]]
      + [[r[col["Latitude"]], r[col["Longitude"]], r[col["Project"]], r[col["Status"]], scientific(r[col["API"]])] for r in body[:60]])

lines = open(os.path.join(real, "usgs-nwis-pa-gw-sites.tsv"), encoding="utf-8").read().split("\n")
comments = [l for l in lines if l.startswith("#")]
rest = [l for l in lines if not l.startswith("#")]
header = rest[0]
# NWIS's column-format line (`5s 15s …`), when the file has one.
fmt = [rest[1]] if all(f.strip()[-1:] in "sdn" and f.strip()[:-1].isdigit() for f in rest[1].split("\t")) else []
data = [l for l in rest[1 + len(fmt):] if l.strip()][:60]
with open(os.path.join(here, "nwis-pa-depths-ft.tsv"), "w", encoding="utf-8", newline="") as f:
    f.write("\n".join(comments + [header] + fmt + data) + "\n")
names = header.split("\t")
ix = {n: i for i, n in enumerate(names)}
def metres(v):
    v = v.strip()
    return "" if v == "" else "%.2f" % (float(v) * 0.3048)
out = [["Site ID", "Site Name", "Latitude", "Longitude", "Well Depth (m)", "Elevation (m)"]]
for l in data:
    c = l.split("\t")
    out.append(["M-" + c[ix["site_no"]].strip(), c[ix["station_nm"]].strip(), c[ix["dec_lat_va"]].strip(), c[ix["dec_long_va"]].strip(),
                metres(c[ix["well_depth_va"]]), metres(c[ix["alt_va"]])])
write("nwis-pa-depths-m.csv", out, crlf=False)

# The answer keys: every well a load should store, each with every field (as AnswerKey.WellFields:
# `name`, `lat`, `lon`, the detail fields, `extra.COLUMN`), and the rows it should reject, from the
# workbooks and lists themselves. The mapping each key states is the one a reader of the header would
# make; unmapped columns are kept under their names, blank cells named column_N, repeats NAME_2.
import json, re

def header_names(published):
    taken, seen, names = set(published), {}, []
    for k, cell in enumerate(published):
        if not cell.strip():
            name = f"column_{k + 1}"; names.append(name); taken.add(name); continue
        seen[cell] = seen.get(cell, 0) + 1
        if seen[cell] == 1: names.append(cell); continue
        j = seen[cell]
        while f"{cell}_{j}" in taken: j += 1
        names.append(f"{cell}_{j}"); taken.add(f"{cell}_{j}")
    return names

def number(text): return repr(float(text))

def key(name, rows, mapping, identifier, first_line=2, reject=None, numbers=(), convert=None):
    """rows: lists of cell text, the header first. mapping: column → field; identifier: its column."""
    names = header_names(rows[0])
    wells, rejects = [], []
    for k, row in enumerate(rows[1:]):
        line = first_line + k
        cells = dict(zip(names, [c.strip() for c in row]))
        why = reject(cells) if reject else None
        if why: rejects.append({"line": line, "kind": why}); continue
        fields = {}
        for column, value in cells.items():
            if value == "" or column == identifier: continue
            field = mapping.get(column, "extra." + column)
            if field is None: continue
            if convert and field in convert: value = convert[field](value)
            elif field in numbers: value = number(value)
            fields[field] = value
        wells.append({"identifier": cells[identifier], "fields": fields})
    with open(os.path.join(here, name), "w") as f:
        json.dump({"wells": wells, "rejects": rejects}, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")

fl_rows = list(csv.reader(open(os.path.join(here, "fl-orphan-wells.csv"), encoding="utf-8")))
fl_map = {"COUNTY": "county", "Latitude": "lat", "Longitude": "lon", "COMPANY": "operator", "WELL_NAME": "name", "Current Status": "status"}
key("fl-orphan-wells.key.json", fl_rows, fl_map, "UWI", numbers=("lat", "lon"))
key("fl-orphan-wells-repeated.key.json", list(csv.reader(open(os.path.join(here, "fl-orphan-wells-repeated.csv"), encoding="utf-8"))),
    fl_map, "UWI", numbers=("lat", "lon"))

def ak_reject(cells):
    where = cells["Surface Location Coordinates (NAD 83)"]
    if where == "" or where.lower() == "unknown": return "missing coordinates"
    if re.search(r"\bT\s*\d+\s*[NS]\b", where) and re.search(r"\bR\s*\d+\s*[EW]\b", where): return "legal description, not coordinates"
    return None
ak_rows = list(csv.reader(open(os.path.join(here, "ak-aogcc-orphan-wells.csv"), encoding="utf-8")))
point = "Surface Location Coordinates (NAD 83)"
# The pair's two numbers are the well's lat and lon; the column itself is kept too, as every point column is.
ak_expected = []
key("ak-aogcc-orphan-wells.key.json", ak_rows, {"Well Name": "name", "Completion Date": "completion_date"}, "API#", reject=ak_reject)
ak = json.load(open(os.path.join(here, "ak-aogcc-orphan-wells.key.json")))
for well in ak["wells"]:
    lat, lon = well["fields"][f"extra.{point}"].split(",")
    well["fields"]["lat"], well["fields"]["lon"] = number(lat), number(lon)
    date = well["fields"].get("completion_date")
    if date and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):  # a year alone, or N/A: kept as text
        well["fields"]["extra.Completion Date"] = well["fields"].pop("completion_date")
json.dump(ak, open(os.path.join(here, "ak-aogcc-orphan-wells.key.json"), "w"), indent=1, sort_keys=True, ensure_ascii=False)

pair_rows = list(csv.reader(open(os.path.join(here, "co-location-pair.csv"), encoding="utf-8")))
key("co-location-pair.key.json", pair_rows, {}, "LocationID")
pair = json.load(open(os.path.join(here, "co-location-pair.key.json")))
for well in pair["wells"]:
    lat, lon = well["fields"]["extra.Location"].split(",")
    well["fields"]["lat"], well["fields"]["lon"] = number(lat), number(lon)
json.dump(pair, open(os.path.join(here, "co-location-pair.key.json"), "w"), indent=1, sort_keys=True)

# Excel's ="…" is its text: the key reads it as a spreadsheet shows it.
guarded = [[re.sub(r'^="(.*)"$', r"\1", c) for c in r] for r in csv.reader(open(os.path.join(here, "co-excel-guarded.csv"), encoding="utf-8"))]
# Some wells have no API number, so LocationID (unique) is the identifier.
key("co-excel-guarded.key.json", guarded, {"Latitude": "lat", "Longitude": "lon", "Status": "status"}, "LocationID", numbers=("lat", "lon"))

feet = lambda v: repr(float(v) * 0.3048)
nwis = [l.split("\t") for l in open(os.path.join(here, "nwis-pa-depths-ft.tsv"), encoding="utf-8").read().split("\n") if l and not l.startswith("#")]
key("nwis-pa-depths-ft.key.json", nwis, {"station_nm": "name", "dec_lat_va": "lat", "dec_long_va": "lon", "alt_va": "ground_elevation",
                                          "well_depth_va": "total_depth"}, "site_no", first_line=len(comments) + 2,
    numbers=("lat", "lon"), convert={"ground_elevation": feet, "total_depth": feet})
key("nwis-pa-depths-m.key.json", list(csv.reader(open(os.path.join(here, "nwis-pa-depths-m.csv"), encoding="utf-8"))),
    {"Site Name": "name", "Latitude": "lat", "Longitude": "lon", "Well Depth (m)": "total_depth", "Elevation (m)": "ground_elevation"},
    "Site ID", numbers=("lat", "lon", "total_depth", "ground_elevation"))
