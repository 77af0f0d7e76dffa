#!/usr/bin/env python3
"""Checks a `wells load --format json` summary against the answer key of `wells generate --layout … --key`.

Usage: check_answer_key.py KEY.json SUMMARY.json [STORE.sqlite]
Prints "ok", or one line per difference. With the store, reject lines and reasons are compared too.
"""
import json
import sqlite3
import sys
from collections import Counter

key = json.load(open(sys.argv[1]))
summary = json.load(open(sys.argv[2]))
problems = []


def expect(condition, message):
    if not condition:
        problems.append(message)


inferred = {i["subject"]: i for i in summary.get("inferences", [])}
expect(summary["records"] == key["records"], f"records {summary['records']} != {key['records']}")
expect(summary["inserted"] + summary["updated"] + summary["rejected"] == summary["records"], "loaded + rejected != records")

identifier = key["identifier"]
report = summary.get("identifierNotKey")
if identifier["isKey"]:
    expect(summary["mapping"].get("uwi") == identifier["column"], f"identifier {summary['mapping'].get('uwi')} != {identifier['column']}")
    expect(report is None, f"identifier reported as not a key: {report}")
else:
    expect(report is not None, "identifier not reported as not a key")
    if report:
        expected = (identifier["column"], identifier["distinct"], identifier["mostRepeated"]["value"], identifier["mostRepeated"]["count"])
        actual = (report["column"], report["distinct"], report["mostRepeated"], report["mostRepeatedCount"])
        expect(actual == expected, f"not-a-key report {actual} != {expected}")

for axis in ("latitude", "longitude"):
    if axis in key:
        got = inferred.get(axis, {})
        expect((got.get("column"), got.get("value")) == (key[axis]["column"], key[axis]["format"]),
               f"{axis} inferred as {got.get('column')}: {got.get('value')}, expected {key[axis]['column']}: {key[axis]['format']}")
hemisphere = key.get("longitude", {}).get("hemisphere")
if hemisphere:
    expect(inferred.get("hemisphere", {}).get("value", "").startswith(hemisphere), f"hemisphere {inferred.get('hemisphere')}")
if "datumColumn" in key:
    expect(inferred.get("datum", {}).get("column") == key["datumColumn"], f"datum column {inferred.get('datum')}")
    wells = {t["source"]: t["wells"] for t in summary.get("transformations", [])}
    for name, crs in (("NAD27", "EPSG:4267"), ("NAD83", "EPSG:4269")):
        expect(wells.get(crs, 0) == key["datums"].get(name, 0), f"{name} rows {wells.get(crs, 0)} != {key['datums'].get(name, 0)}")
if "commentLines" in key:
    expect(summary.get("commentLines") == key["commentLines"], f"comment lines {summary.get('commentLines')} != {key['commentLines']}")

expected_suspects = sorted((s["line"], s["reason"]) for s in key.get("suspects", []))
actual_suspects = sorted((s["line"], s["reason"]) for s in summary.get("suspects", []))
expect(actual_suspects == expected_suspects,
       f"suspects differ: missing {sorted(set(expected_suspects) - set(actual_suspects))[:5]}, "
       f"extra {sorted(set(actual_suspects) - set(expected_suspects))[:5]}")

expected_rejects = Counter(r["kind"] for r in key.get("rejects", []))
expected_rejects["duplicate well"] += len(key.get("duplicates", []))
expected_rejects = {k: v for k, v in expected_rejects.items() if v}
expect(summary["rejectReasons"] == expected_rejects, f"reject reasons {summary['rejectReasons']} != {expected_rejects}")

if len(sys.argv) > 3:
    db = sqlite3.connect(f"file:{sys.argv[3]}?mode=ro", uri=True)
    load = db.execute("SELECT max(id) FROM loads").fetchone()[0]
    lines = sorted(line for (line,) in db.execute("SELECT line FROM rejects WHERE load_id = ?", (load,)))
    wanted = sorted([r["line"] for r in key.get("rejects", [])] + [d["line"] for d in key.get("duplicates", [])])
    expect(lines == wanted, f"reject lines differ: {lines[:5]} … against {wanted[:5]} …")

print("ok" if not problems else "\n".join(problems))
