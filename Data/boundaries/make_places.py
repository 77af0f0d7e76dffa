#!/usr/bin/env python3
"""Builds the loader's place outlines (Sources/WellKit/Resources/places.tsv and places.bin) from the
public-domain boundaries in this folder: US counties, the states as the union of their counties, and
Natural Earth countries.

    /usr/bin/python3 Data/boundaries/make_places.py      # Debian's Python, with shapely

places.tsv lists the places, one line each, tab-separated: kind ("county", "state" or "country"), name,
state and lsad (a county's; empty otherwise), the bounding box (west, south, east, north), the rings
("start:count;…", offsets into places.bin's vertices), then the codes, one field each (a country's
names hold commas). Lines starting with # are comments. It is text that WellKit reads in about a
millisecond: the same index as JSON took JSONDecoder 22-25 ms, on every load that checks places.
places.bin holds every ring's vertices as little-endian float32 longitude,
latitude pairs. A 1:20M county outline is off by up to about 1-2 km along a border, which is why the
loader's check has a tolerance of 2 km; float32 adds at most about a metre.
"""
import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "..", "Sources", "WellKit", "Resources")

places = []
coordinates = []


def add(kind, name, codes, geometry, **extra):
    polygons = geometry["coordinates"] if geometry["type"] == "MultiPolygon" else [geometry["coordinates"]]
    rings = []
    west, south, east, north = 180.0, 90.0, -180.0, -90.0
    for polygon in polygons:
        for ring in polygon:
            rings.append([len(coordinates) // 2, len(ring)])
            for lon, lat in (p[:2] for p in ring):
                coordinates.extend((lon, lat))
                west, south, east, north = min(west, lon), min(south, lat), max(east, lon), max(north, lat)
    place = {"kind": kind, "name": name, "codes": [c for c in codes if c and c != "-99"],
             "bbox": [round(west, 5), round(south, 5), round(east, 5), round(north, 5)], "rings": rings}
    place.update(extra)
    places.append(place)


def write_index(places, path):
    """places.tsv: see the docstring. Floats as Python's repr, which Swift's Double(_:) reads back exactly."""
    with open(path, "w", newline="\n") as f:
        f.write("# Data/boundaries (see its README.md); made by Data/boundaries/make_places.py\n")
        f.write("# kind\tname\tstate\tlsad\twest\tsouth\teast\tnorth\trings\tcodes…\n")
        for p in places:
            fields = [p["kind"], p["name"], p.get("state") or "", p.get("lsad") or ""] + [repr(v) for v in p["bbox"]]
            fields.append(";".join("%d:%d" % (start, count) for start, count in p["rings"]))
            fields += p["codes"]
            assert not any("\t" in x or "\n" in x for x in fields), p["name"]
            f.write("\t".join(fields) + "\n")


with open(os.path.join(here, "us-counties-fips.geojson")) as f:
    for feature in json.load(f)["features"]:
        p = feature["properties"]
        if p["COUNTY"] == "nyc":  # overlaps the five NYC counties (see README.md)
            continue
        add("county", p["NAME"], [p["STATE"] + p["COUNTY"]], feature["geometry"], state=p["STATE"], lsad=p["LSAD"])

# States as their own outlines: the union of their counties (shapely, from Debian's python3-shapely or
# python3-geopandas), so that a state is one polygon to test rather than its counties' many.
from shapely.geometry import shape, mapping
from shapely.ops import unary_union
with open(os.path.join(here, "us-counties-fips.geojson")) as f:
    by_state = {}
    for feature in json.load(f)["features"]:
        p = feature["properties"]
        if p["COUNTY"] != "nyc":
            by_state.setdefault(p["STATE"], []).append(shape(feature["geometry"]).buffer(0))
for state, shapes in sorted(by_state.items()):
    # A 1e-5° (about a metre) buffer closes the slivers between counties' simplified outlines.
    union = unary_union([g.buffer(1e-5, join_style=2) for g in shapes]).buffer(-1e-5, join_style=2)
    add("state", state, [state], mapping(union))

with open(os.path.join(here, "ne_50m_admin_0_countries.geojson")) as f:
    for feature in json.load(f)["features"]:
        p = feature["properties"]
        names = [p.get(k) for k in ("ADMIN", "NAME", "NAME_LONG", "FORMAL_EN", "SOVEREIGNT", "ISO_A2", "ISO_A3", "ADM0_A3")]
        add("country", p["ADMIN"], list(dict.fromkeys(n for n in names if isinstance(n, str))), feature["geometry"])

os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "places.bin"), "wb") as f:
    f.write(struct.pack("<%df" % len(coordinates), *coordinates))

write_index(places, os.path.join(out, "places.tsv"))
print(f"{len(places)} places, {len(coordinates) // 2} vertices")
