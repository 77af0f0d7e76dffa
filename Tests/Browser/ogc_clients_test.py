"""OWSLib's OGC API – Features client walking `wells serve`: landing page, conformance,
collections, the collection, a bbox page and one item.

Run by ServeTests.owslibWalksTheAPI (Swift) with the expected identifiers from `wells bbox` on the
same store; prints what it checked and exits 1 with the first difference.

    python ogc_clients_test.py --url http://127.0.0.1:8080/ --bbox -115,52,-114,53 --expect uwis.txt
"""

import argparse
import sys
import urllib.parse

from owslib.ogcapi.features import Features


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--bbox", required=True, help="minLon,minLat,maxLon,maxLat")
    parser.add_argument("--expect", required=True, help="a file of the uwis `wells bbox` lists for --bbox, one a line")
    args = parser.parse_args()
    expected = sorted(line for line in open(args.expect, encoding="utf-8").read().split("\n") if line)

    api = Features(args.url)
    check(any(link["rel"] == "service-desc" for link in api.links), f"the landing page links no service-desc: {api.links}")
    definition = api.api()
    check(definition.get("openapi", "").startswith("3.0"), f"/api is no OpenAPI 3.0 document: {str(definition)[:200]}")
    check("/collections/{collectionId}/items/{featureId}" in definition["paths"], "/api lacks items/{featureId}")

    conforms = api.conformance()["conformsTo"]
    for name in ["core", "geojson", "oas30"]:
        check(f"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/{name}" in conforms, f"/conformance lacks {name}: {conforms}")
    check(not any(c.endswith("/conf/html") for c in conforms), "/conformance claims html")

    collections = api.collections()["collections"]
    check([c["id"] for c in collections] == ["wells"], f"collections: {[c['id'] for c in collections]}")
    check(api.feature_collections() == ["wells"], f"feature_collections: {api.feature_collections()}")
    collection = api.collection("wells")
    check(collection["itemType"] == "feature" and collection["extent"]["spatial"]["bbox"], f"collection: {collection}")
    queryables = api.collection_queryables("wells")
    check("status" in queryables["properties"] and "geometry" in queryables["properties"], f"queryables: {queryables}")

    # A bbox page, followed through its `next` links: the same wells as `wells bbox`.
    bbox = [float(v) for v in args.bbox.split(",")]
    page = api.collection_items("wells", bbox=bbox, limit=97)
    features = list(page["features"])
    pages = 1
    while True:
        following = [link["href"] for link in page.get("links", []) if link["rel"] == "next"]
        if not following:
            break
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(following[0]).query))
        page = api.collection_items("wells", bbox=bbox, limit=int(query["limit"]), offset=int(query["offset"]))
        features += page["features"]
        pages += 1
    check(page["numberMatched"] == len(expected), f"numberMatched {page['numberMatched']}, wells bbox {len(expected)}")
    got = sorted(f["id"] for f in features)
    check(got == expected, f"{len(got)} ids from items, {len(expected)} from wells bbox; first differences "
                           f"{sorted(set(got) ^ set(expected))[:5]}")
    check(all(f["properties"]["uwi"] == f["id"] for f in features), "a feature whose id is not its uwi")
    check(all("status" in f["properties"] and "total_depth" in f["properties"] for f in features), "features without their mapped fields")

    # One item, by the id the page gave it.
    first = features[0]
    item = api.collection_item("wells", urllib.parse.quote(first["id"], safe=""))
    check(item["id"] == first["id"] and item["properties"]["wellkit_id"] == first["properties"]["wellkit_id"],
          f"items/{first['id']} answered {item.get('id')!r}")
    check(item["geometry"] == first["geometry"], f"items/{first['id']}: {item['geometry']} against {first['geometry']}")
    print(f"OWSLib: landing, conformance, collections, wells, queryables, {len(features)} wells in {pages} pages, item {first['id']}: ok")


if __name__ == "__main__":
    main()
