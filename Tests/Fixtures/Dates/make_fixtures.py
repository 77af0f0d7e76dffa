#!/usr/bin/python3
"""Makes the small files of Tests/Fixtures/Dates from the Alaska Oil and Gas Conservation Commission's
orphan-well workbook (Data/real/ak-aogcc-orphan-wells.xlsx, provenance in Data/real/README.md), read with
openpyxl:  python3 Tests/Fixtures/Dates/make_fixtures.py

Its `Completion Date` column holds real dates (Excel date cells) and years alone (number cells, `1917`)
and `N/A`: each file writes it the way a spreadsheet saved as CSV, or another system, writes dates:
  ak-mdy.csv     m/d/yyyy, as Excel (en-US) saves a workbook as CSV: 9/6/1955
  ak-dmy.csv     dd/mm/yyyy, as Excel (en-GB, most of Europe) saves it: 06/09/1955
  ak-oracle.csv  DD-MON-YY, Oracle's default NLS_DATE_FORMAT: 06-SEP-55
  ak-serial.csv  Excel's serial day numbers, as the cells hold them (31110); the rows with a year alone
                 are left out, since a serial and a year cannot be told apart in one column of numbers
Years alone stay `1917` and text stays as it is in all four. The coordinates, one `lat, lon` column in
the workbook, are split into Latitude and Longitude; rows whose column holds no pair (a legal
description, `unknown`) and the footnote row are left out: reading them is not what these files test.
ak-truth.json gives, per API#, the completion date as openpyxl reads the cell: `yyyy-mm-dd`, `yyyy` for
a year alone, or the text that is no date (which a load must keep as text).
"""
import csv, datetime, json, os, re
import openpyxl

here = os.path.dirname(os.path.abspath(__file__))
book = os.path.join(here, "..", "..", "..", "Data", "real", "ak-aogcc-orphan-wells.xlsx")
rows = list(openpyxl.load_workbook(book).active.iter_rows(values_only=True))
header = list(rows[0])
pair = re.compile(r"^\s*(-?\d+\.\d+)\s*,\s*(-?\d+\.\d+)\s*$")
kept = [r for r in rows[1:] if r[0] and isinstance(r[6], str) and pair.match(r[6])]
months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
out_header = header[:6] + ["Latitude", "Longitude"] + header[7:]

def written(value, style):
    if isinstance(value, datetime.datetime):
        d = value.date()
        return {"mdy": f"{d.month}/{d.day}/{d.year}", "dmy": f"{d.day:02d}/{d.month:02d}/{d.year}",
                "oracle": f"{d.day:02d}-{months[d.month - 1]}-{d.year % 100:02d}",
                "serial": str((d - datetime.date(1899, 12, 30)).days)}[style]
    return str(value)

for style in ["mdy", "dmy", "oracle", "serial"]:
    with open(os.path.join(here, f"ak-{style}.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(out_header)
        for r in kept:
            if style == "serial" and isinstance(r[4], int):
                continue
            lat, lon = pair.match(r[6]).groups()
            w.writerow([("" if v is None else str(v)) for v in r[:4]] + [written(r[4], style), r[5] or "", lat, lon, r[7] or ""])

truth = {r[3]: (r[4].date().isoformat() if isinstance(r[4], datetime.datetime) else str(r[4])) for r in kept}
with open(os.path.join(here, "ak-truth.json"), "w") as f:
    json.dump(truth, f, indent=1, sort_keys=True)
    f.write("\n")
