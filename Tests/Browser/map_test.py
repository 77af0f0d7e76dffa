#!/usr/bin/env python3
"""Headless-browser test of the map page of `wells serve`.

    python map_test.py --url http://127.0.0.1:PORT/ --out DIR [--center LAT,LON --zoom Z]

Drives Debian's Chromium (/usr/bin/chromium with /usr/bin/chromedriver, never Selenium Manager) through the
page: the map's clusters, the list of wells in view against the server's own count, an area drawn by clicking
(with --wells and --db: its count against `wells count --within`), zooming to single pins,
a pin's details, the list sorted by spud date, a row's details, state and county outlines at their zooms,
clusters that never overlap, a suspect well drawn apart with its reason (with --wells, --suspects-url and
--suspects-db: a store with flagged wells, and `wells suspects` on it), and a clean browser console. Prints one line
per passed check; on the first failure prints which check failed and why on stderr and exits 1. Screenshots
(map.png, details.png, list.png, and failure.png on a failure) go to --out.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


class CheckFailed(Exception):
    pass


class MapTest:
    def __init__(self, driver, url, out, wells=None, db=None, suspects=None):
        self.wells, self.db = wells, db
        self.suspects = suspects  # (url, db) of a server whose store has flagged wells
        self.driver = driver
        self.url = url if url.endswith("/") else url + "/"
        self.out = out
        self.check = "startup"

    # ---- helpers ----

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, what, predicate, timeout=30.0, interval=0.2):
        """Polls predicate until it returns something truthy; fails the current check after timeout."""
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                value = predicate()
                if value:
                    return value
            except WebDriverException as e:  # an element replaced under us, and so on: try again
                last_error = e
            time.sleep(interval)
        detail = f" (last error: {last_error.msg})" if last_error else ""
        raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}{detail}")

    def fetch_json(self, path):
        """GETs a server URL directly, from Python, not through the page."""
        url = urllib.parse.urljoin(self.url, path)
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return json.load(response)
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")[:300]
            raise CheckFailed(f"GET {url} answered {e.code}: {body}")
        except OSError as e:
            raise CheckFailed(f"GET {url} failed: {e}")

    def screenshot(self, name):
        path = os.path.join(self.out, name)
        self.driver.save_screenshot(path)
        return path

    def state(self):
        return self.js("const p = window.wellsPage; return p ? {ready: p.ready, tiles: p.tilesLoading, "
                       "list: p.listLoading, sort: p.listSort, zoom: p.map.getZoom()} : null;")

    def wait_settled(self, what, timeout=30.0):
        """Waits until no tile and no list request is in flight, twice in a row 300 ms apart, so that the
        tiles Leaflet prunes after loading are gone and the list has caught up with the view."""
        def settled():
            s = self.state()
            if not s or s["tiles"] or s["list"]:
                return False
            time.sleep(0.3)
            s = self.state()
            return s and not s["tiles"] and not s["list"]
        self.wait(what, settled, timeout)

    def drawn_wells(self):
        """The wells the markers of the current zoom stand for (clusters' counts plus pins), the number of
        tiles they come from, and those tiles' box as a bbox parameter (to the poles at the world's edge, as
        the server's buffered top and bottom tiles reach them)."""
        result = self.js("""
            const map = window.wellsPage.map, z = map.getZoom(), n = 2 ** z;
            const tiles = [...document.querySelectorAll('.leaflet-tile[data-tile]')]
              .map((el) => el.dataset.tile.split('/').map(Number)).filter((t) => t[0] === z);
            if (!tiles.length) return null;
            const xs = tiles.map((t) => t[1]), ys = tiles.map((t) => t[2]);
            const x0 = Math.min(...xs), x1 = Math.max(...xs) + 1, y0 = Math.min(...ys), y1 = Math.max(...ys) + 1;
            const lat = (row) => row <= 0 ? 90 : row >= n ? -90 : Math.atan(Math.sinh(Math.PI * (1 - 2 * row / n))) * 180 / Math.PI;
            let wells = document.querySelectorAll('.wells-pin').length;
            for (const el of document.querySelectorAll('.wells-cluster')) wells += Number(el.dataset.count);
            return [wells, tiles.length, [x0 / n * 360 - 180, lat(y1), x1 / n * 360 - 180, lat(y0)].join(',')];""")
        if not result:
            raise CheckFailed("no .leaflet-tile[data-tile] elements: cannot tell which tiles are loaded")
        return result

    def clickable_in_map(self, css, limit=20):
        """Up to `limit` elements matching css whose centre lies inside the map, clear of Leaflet's controls,
        and not covered there by another marker (so that a real click reaches them); fewest wells first for
        clusters. Works on the markers' boxes and z-indexes: the browser's own hit-testing takes ~10 ms a
        point with thousands of markers."""
        return self.js("""
            const [css, limit] = arguments, m = document.getElementById('map').getBoundingClientRect();
            const wells = (el) => Number(el.dataset.count) || 1;
            const markers = [...document.querySelectorAll('.leaflet-marker-pane > *')].map((el, order) =>
              ({ el, order, r: el.getBoundingClientRect(), z: Number(getComputedStyle(el).zIndex) || 0 }));
            const above = (a, b) => a.z > b.z || (a.z === b.z && a.order > b.order);
            const found = [];
            const candidates = markers.filter((c) => c.el.matches(css)).sort((a, b) => wells(a.el) - wells(b.el));
            for (const c of candidates) {
              const x = c.r.left + c.r.width / 2, y = c.r.top + c.r.height / 2;
              if (!(c.r.width > 0 && x > m.left + 50 && x < m.right - 20 && y > m.top + 90 && y < m.bottom - 30)) continue;
              const covered = markers.some((o) => o !== c && above(o, c) && o.r.width > 0 &&
                x >= o.r.left && x <= o.r.right && y >= o.r.top && y <= o.r.bottom);
              if (!covered) found.push(c.el);
              if (found.length >= limit) break;
            }
            return found;""", css, limit)

    def click_cluster(self, clusters):
        """Clicks (a real click) the smallest clickable cluster and checks that the map zooms in two levels
        centred on it. Returns a note for the log."""
        cluster = clusters[0]
        before = self.state()["zoom"]
        target = self.js("""
            const el = arguments[0], map = window.wellsPage.map, r = el.getBoundingClientRect();
            const m = map.getContainer().getBoundingClientRect();
            const ll = map.containerPointToLatLng([r.left + r.width / 2 - m.left, r.top + r.height / 2 - m.top]);
            return [ll.lat, ll.lng];""", cluster)
        title = cluster.get_attribute("title")
        cluster.click()
        expected = min(before + 2, 18)
        self.wait(f"zoom {expected} after clicking the cluster of {title} at zoom {before}",
                  lambda: self.state()["zoom"] == expected, timeout=10)
        offset = self.js("""
            const map = window.wellsPage.map, p = map.latLngToContainerPoint(arguments[0]), s = map.getSize();
            return Math.hypot(p.x - s.x / 2, p.y - s.y / 2);""", target)
        if offset > 8:
            raise CheckFailed(f"after clicking the cluster of {title} the map is centred {offset:.0f} px away from it")
        return f"cluster of {title} → zoom {expected}"

    def shown_count(self):
        text = self.driver.find_element(By.ID, "count").text
        m = re.match(r"\s*([\d,.\u202f\u00a0 ]+)\s+wells?\s+in\s+view", text)
        return (int(re.sub(r"\D", "", m.group(1))), text) if m else (None, text)

    def map_bbox(self):
        return self.js("""
            const b = window.wellsPage.map.getBounds(), c = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
            return [c(b.getWest(), -180, 180), c(b.getSouth(), -90, 90), c(b.getEast(), -180, 180),
                    c(b.getNorth(), -90, 90)].map((v) => v.toFixed(6)).join(',');""")

    def details_id(self):
        return self.driver.find_element(By.ID, "details").get_attribute("data-id")

    def details_table_text(self):
        cells = self.driver.find_elements(By.CSS_SELECTOR, "#details table td")
        return [c.text for c in cells]

    def expect_details(self, pin_id, source):
        """Waits for the details panel to show pin_id and compares its uwi with the server's."""
        try:
            self.wait(f"#details[data-id] to become {pin_id!r} after {source}",
                      lambda: self.details_id() == pin_id, timeout=15)
        except CheckFailed as e:
            status = self.driver.find_element(By.ID, "status").text
            raise CheckFailed(f"{e}; it is {self.details_id()!r}" + (f", status line: {status!r}" if status else ""))
        # The page knows a well by its internal id (wellkit_id); a feature's id is its uwi.
        found = self.fetch_json(f"collections/wells/items?ids={urllib.parse.quote(pin_id)}&properties=*")["features"]
        if len(found) != 1 or str((found[0].get("properties") or {}).get("wellkit_id")) != pin_id:
            raise CheckFailed(f"GET collections/wells/items?ids={pin_id} answered {found[:1]!r}")
        props = found[0].get("properties") or {}
        key = "uwi" if props.get("uwi") not in (None, "") else "name"
        expected = str(props.get(key))
        cells = self.details_table_text()
        if expected not in cells:
            raise CheckFailed(f"the details of well {pin_id} lack its {key} {expected!r} (table cells: {cells[:8]}…)")
        return key, expected

    # ---- the basemap, clusters and suspects ----

    def go(self, center, zoom, what):
        self.js("window.wellsPage.map.setView(arguments[0], arguments[1], {animate: false})", center, zoom)
        self.wait_settled(what)

    def drawn_paths(self, css):
        """How many SVG paths matching css are drawn inside the map's box (Leaflet gives a path outside the view `M0 0`)."""
        return self.js("""
            const m = document.getElementById('map').getBoundingClientRect();
            return [...document.querySelectorAll(arguments[0])].filter((p) => {
              const d = p.getAttribute('d') || '', r = p.getBoundingClientRect();
              return d && d !== 'M0 0' && r.right > m.left && r.left < m.right && r.bottom > m.top && r.top < m.bottom;
            }).length;""", css)

    def labels(self, css):
        return self.js("return [...document.querySelectorAll(arguments[0])].map((el) => el.textContent)", css)

    def outlines(self):
        """States outlined and named at zoom 4 without counties; counties outlined and named at zoom 9."""
        self.go([39.5, -98.5], 4, "the view of the United States at zoom 4")
        states = self.wait("state outlines drawn at zoom 4", lambda: (n := self.drawn_paths("path.basemap-states")) >= 40 and n)
        names = self.wait("state labels at zoom 4", lambda: (l := self.labels(".state-label")) and "Kansas" in l and l)
        counties = self.drawn_paths("path.basemap-counties")
        if counties:
            raise CheckFailed(f"{counties} county outlines drawn at zoom 4, where only states should be")
        self.screenshot("states.png")
        county = next(f for f in self.fetch_json("basemap/counties.geojson")["features"] if f["id"] == "49035")
        lon, lat = county["properties"]["label"]
        self.go([lat, lon], 9, "Salt Lake County at zoom 9")
        drawn = self.wait("county outlines drawn at zoom 9", lambda: (n := self.drawn_paths("path.basemap-counties")) >= 3 and n)
        here = self.wait("the label of Salt Lake County at zoom 9", lambda: "Salt Lake" in (l := self.labels(".county-label")) and l)
        self.screenshot("counties.png")
        print(f"PASS 7 outlines: zoom 4 draws {states} state outlines ({len(names)} names, Kansas among them) and no county; "
              f"zoom 9 at Salt Lake County draws {drawn} county outlines, {len(here)} names (states.png, counties.png)")

    def clusters_apart(self):
        """At several zooms over the wells, no two cluster symbols overlap, nor a cluster and a pin (their boxes)."""
        page = self.fetch_json("collections/wells/items?limit=1000&properties=name")["features"]
        lons = sorted(f["geometry"]["coordinates"][0] for f in page)
        lats = sorted(f["geometry"]["coordinates"][1] for f in page)
        center = [lats[len(lats) // 2], lons[len(lons) // 2]]
        notes = []
        for zoom in (4, 6, 8, 10):
            self.go(center, zoom, f"the tiles at zoom {zoom}")
            result = self.js("""
                const box = (el) => el.getBoundingClientRect();
                const clusters = [...document.querySelectorAll('.wells-cluster')].map(box);
                const pins = [...document.querySelectorAll('.wells-pin')].map(box);
                const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
                                          Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
                const show = (r) => `${r.width.toFixed(0)} px at ${r.left.toFixed(0)},${r.top.toFixed(0)}`;
                let near = 0;
                for (let i = 0; i < clusters.length; i++) {
                  for (let j = i + 1; j < clusters.length; j++) {
                    const a = clusters[i], b = clusters[j];
                    if (overlap(a, b)) return {bad: `clusters ${show(a)} and ${show(b)} overlap`};
                    if (Math.hypot(a.x - b.x, a.y - b.y) < 80) near++;
                  }
                  for (const p of pins) if (overlap(clusters[i], p)) return {bad: `cluster ${show(clusters[i])} and pin ${show(p)} overlap`};
                }
                return {clusters: clusters.length, pins: pins.length, near, largest: Math.max(0, ...clusters.map((r) => r.width))};""")
            if "bad" in result:
                self.screenshot("failure-overlap.png")
                raise CheckFailed(f"at zoom {zoom} around {center}: {result['bad']} (failure-overlap.png)")
            notes.append(f"z{zoom}: {result['clusters']} clusters ({result['near']} pairs closer than 80 px, largest "
                         f"{result['largest']:.0f} px), {result['pins']} pins")
        if not any(n.split(": ")[1].split(" ")[0] not in ("0", "1") for n in notes):
            raise CheckFailed(f"too few clusters to compare: {notes}")
        print("PASS 8 clusters apart: no two cluster symbols overlap, nor a cluster and a pin; " + "; ".join(notes))

    def suspect(self):
        """A well its load flagged (`wells suspects`) is drawn distinctly, and its details give the reason."""
        answer = subprocess.run([self.wells, "suspects", "--db", self.db, "--limit", "1", "--format", "json"],
                                capture_output=True, text=True, timeout=60)
        if answer.returncode != 0 or not json.loads(answer.stdout or "[]"):
            raise CheckFailed(f"wells suspects --db {self.db} gave no suspect: {answer.stderr.strip()}")
        flagged = json.loads(answer.stdout)[0]
        self.go([flagged["lat"], flagged["lon"]], 15, f"the suspect well {flagged['uwi']} at zoom 15")
        ids = [str(flagged["id"]), str(flagged["uwi"])]
        selector = ", ".join(f'.wells-pin[data-id="{i}"]' for i in ids)
        pin = self.wait(f"the pin of suspect well {flagged['uwi']}", lambda: self.driver.find_elements(By.CSS_SELECTOR, selector))[0]
        style = self.js("""
            const s = getComputedStyle(arguments[0]), probe = document.createElement('div');
            probe.className = 'wells-pin';
            document.getElementById('map').append(probe);
            const plain = getComputedStyle(probe), result = [s.backgroundColor, s.borderRadius, plain.backgroundColor, plain.borderRadius];
            probe.remove();
            return result;""", pin)
        if "suspect" not in (pin.get_attribute("class") or "") or style[0] == style[2] or style[1] == style[3]:
            raise CheckFailed(f"the suspect well's pin (class {pin.get_attribute('class')!r}, background {style[0]}, radius {style[1]}) "
                              f"is not drawn apart from a plain pin (background {style[2]}, radius {style[3]})")
        self.js("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", pin)
        text = self.wait("the details panel's suspect line", lambda: (
            self.details_id() in ids and [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#details .suspect")]))
        if not any(flagged["reason"] in t for t in text):
            raise CheckFailed(f"the details of suspect well {flagged['uwi']} say {text!r}, without its reason {flagged['reason']!r}")
        self.screenshot("suspect.png")
        print(f"PASS 9 suspect: well {flagged['uwi']} drawn {style[0]} (a plain pin {style[2]}), details say {text[0]!r} (suspect.png)")

    # ---- the checks ----

    def draw_area(self):
        """Draws a quadrilateral by clicking the map, finishes it, and checks the count the page shows
        (the server's CQL2 S_INTERSECTS) against `wells count --within` on the same store (the CLI's path)."""
        draw = self.driver.find_element(By.ID, "draw")
        draw.click()
        element = self.driver.find_element(By.ID, "map")
        width, height = element.size["width"], element.size["height"]
        for fx, fy in [(-0.3, -0.3), (0.2, -0.35), (0.3, 0.25), (-0.25, 0.3)]:
            ActionChains(self.driver).move_to_element_with_offset(element, int(fx * width), int(fy * height)).click().perform()
        corners = self.js("return window.wellsPage.area.corners.length")
        if corners != 4:
            raise CheckFailed(f"four clicks on the map added {corners} corners")
        draw.click()  # Finish
        text = self.wait("a count in #area-count", lambda: "in the area" in (t := self.driver.find_element(By.ID, "area-count").text) and t)
        shown = int(re.sub(r"[^0-9]", "", text))
        wkt = self.js("return window.wellsPage.area.wkt")
        answer = subprocess.run([self.wells, "count", "--db", self.db, "--within", wkt, "--format", "json"],
                                capture_output=True, text=True, timeout=120)
        if answer.returncode != 0:
            raise CheckFailed(f"wells count --within {wkt} failed: {answer.stderr.strip()}")
        expected = json.loads(answer.stdout)[0]["count"]
        if shown != expected or shown <= 0:
            raise CheckFailed(f"#area-count says {text!r} for {wkt}; wells count --within says {expected} (and it must be > 0)")
        self.screenshot("area.png")
        print(f"PASS 2c draw an area: 4 clicks and Finish → {text!r} = wells count --within the same polygon (area.png)")
        self.driver.find_element(By.ID, "clear-area").click()

    def run(self, center, zoom):
        self.check = "1 map loads"
        try:
            with urllib.request.urlopen(urllib.request.Request(self.url, headers={"Accept": "text/html"}), timeout=30) as r:
                page = r.read().decode("utf-8", "replace")
        except OSError as e:
            raise CheckFailed(f"cannot GET the page {self.url}: {e}")
        try:
            with urllib.request.urlopen(urllib.parse.urljoin(self.url, "assets/map/map.js"), timeout=30) as r:
                script = r.read().decode("utf-8", "replace")
        except OSError as e:
            raise CheckFailed(f"cannot GET the page's script assets/map/map.js: {e}")
        if "assets/map/map.js" not in page or "wellsPage" not in script:
            raise CheckFailed(f"{self.url} does not answer the map page (no assets/map/map.js in its {len(page)} characters, "
                              f"or no wellsPage in the script's {len(script)})")
        self.driver.get(self.url)
        self.wait("window.wellsPage.ready", lambda: self.js("return !!(window.wellsPage && window.wellsPage.ready)"))
        self.wait("a .wells-cluster or .wells-pin on the map",
                  lambda: self.driver.find_elements(By.CSS_SELECTOR, ".wells-cluster, .wells-pin"))
        self.wait_settled("the first view's tiles and list")
        clusters = len(self.driver.find_elements(By.CSS_SELECTOR, ".wells-cluster"))
        pins = len(self.driver.find_elements(By.CSS_SELECTOR, ".wells-pin"))
        countries = self.js("return document.querySelectorAll('.leaflet-basemap-pane path').length")
        self.screenshot("map.png")
        print(f"PASS 1 map loads: zoom {self.state()['zoom']}, {clusters} clusters, {pins} pins, "
              f"{countries} basemap shapes (map.png)")
        self.check = "1b every well drawn once"
        drawn, tiles, bbox = self.drawn_wells()
        matched = self.fetch_json(f"collections/wells/ids?bbox={bbox}&sortby=name")["numberMatched"]
        if drawn != matched:
            raise CheckFailed(
                f"the clusters and pins drawn from the {tiles} tiles of zoom {self.state()['zoom']} count {drawn} wells, "
                f"but /collections/wells/ids?bbox={bbox} (those tiles' box) has numberMatched {matched}: "
                f"{'some wells are drawn twice' if drawn > matched else 'some wells are not drawn'}, near tile edges "
                f"if a cluster cell straddles one (cells must start at the tile's corner, not in its buffer)")
        print(f"PASS 1b every well drawn once: the features of {tiles} tiles add up to {drawn} = numberMatched of their box")

        self.check = "2 list matches the server"
        shown, text = self.wait("a count in #count", lambda: self.shown_count()[0] is not None and self.shown_count())
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#list .well-row")
        if shown <= 0 or not rows:
            raise CheckFailed(f"#count says {text!r} with {len(rows)} .well-row elements; expected a count > 0 and rows")
        bbox = self.map_bbox()
        matched = self.fetch_json(f"collections/wells/ids?bbox={bbox}&sortby=name")["numberMatched"]
        if shown != matched:
            raise CheckFailed(f"#count says {text!r} but /collections/wells/ids?bbox={bbox} has numberMatched {matched}")
        expected_rows = min(50, matched)
        if len(rows) != expected_rows:
            raise CheckFailed(f"the list shows {len(rows)} rows at first; expected {expected_rows}")
        print(f"PASS 2 list matches the server: {text!r} = numberMatched for bbox {bbox}, {len(rows)} rows")
        if matched > 50:
            self.js("const l = document.getElementById('list'); l.scrollTop = l.scrollHeight;")
            more = self.wait("more rows after scrolling the list to the bottom",
                             lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#list .well-row")) > 50 and
                             len(self.driver.find_elements(By.CSS_SELECTOR, "#list .well-row")), timeout=15)
            print(f"PASS 2b scrolling the list loads the next page: {more} rows")

        self.check = "2c draw an area"
        if self.wells is not None:
            self.draw_area()

        self.check = "3 zoom to single pins"
        if center is not None:
            self.js("window.wellsPage.map.setView(arguments[0], arguments[1], {animate: false})", center, zoom)
            self.wait_settled(f"the tiles at {center} zoom {zoom}")
        steps = []
        for _ in range(12):
            # Done once a pin can be clicked, but without --center only after clicking at least one cluster.
            if self.clickable_in_map(".wells-pin") and (center is not None or steps or
                                                         not self.clickable_in_map(".wells-cluster")):
                break
            clusters = self.clickable_in_map(".wells-cluster")
            if clusters:
                steps.append(self.click_cluster(clusters))
            elif center is not None:
                raise CheckFailed(f"no clickable pin or cluster in view at {center} zoom {self.state()['zoom']}")
            else:
                self.js("window.wellsPage.map.panBy([160, 120], {animate: false})")  # look around a little
                steps.append("pan")
            self.wait_settled("the tiles after moving the map")
        pins = self.clickable_in_map(".wells-pin")
        if not pins:
            raise CheckFailed(f"no clickable .wells-pin in view after {steps or 'no moves'} (zoom {self.state()['zoom']})")
        drawn = self.js("return [...document.querySelectorAll('.wells-pin')].map((el) => el.dataset.id)")
        twice = sorted({i for i in drawn if drawn.count(i) > 1})
        if twice:
            raise CheckFailed(f"pins drawn more than once (a tile's buffer not dropped?): {twice[:10]}")
        print(f"PASS 3 zoom to single pins: {len(pins)} clickable pins at zoom {self.state()['zoom']}"
              f"{' after ' + ', '.join(steps) if steps else ''}")

        self.check = "4 pin details"
        clicked = None
        for pin in pins:
            try:
                pin_id = pin.get_attribute("data-id")
                pin.click()
                clicked = pin_id
                break
            except WebDriverException:
                continue
        if clicked is None:
            raise CheckFailed(f"none of the {len(pins)} pins in view could be clicked")
        if not clicked:
            raise CheckFailed("the clicked .wells-pin has no data-id")
        key, value = self.expect_details(clicked, "clicking its pin")
        selected = self.driver.find_elements(By.CSS_SELECTOR, ".wells-pin.selected")
        if not selected or any(el.get_attribute("data-id") != clicked for el in selected):
            raise CheckFailed(f"pin {clicked} clicked but the highlighted pins are "
                              f"{[el.get_attribute('data-id') for el in selected]}")
        self.screenshot("details.png")
        print(f"PASS 4 pin details: pin {clicked} → #details shows {key} {value!r}, pin highlighted (details.png)")

        self.check = "5 list sorted by spud date"
        Select(self.driver.find_element(By.ID, "sort")).select_by_value("-spud_date")
        self.wait("the list to reload sorted by -spud_date",
                  lambda: self.state()["sort"] == "-spud_date" and not self.state()["list"], timeout=20)
        self.wait_settled("the list")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#list .well-row")
        if not rows:
            raise CheckFailed("the list sorted by -spud_date has no rows")
        values = [r.find_element(By.CSS_SELECTOR, ".value").text.strip() for r in rows]
        dates = [v for v in values if re.match(r"\d{4}-\d{2}-\d{2}", v)]
        for a, b in zip(dates, dates[1:]):
            if a < b:
                raise CheckFailed(f"spud dates increase in the list sorted by -spud_date: {a} before {b} "
                                  f"(first values: {values[:10]})")
        first_null = next((i for i, v in enumerate(values) if v == "—"), None)
        if first_null is not None and any(re.match(r"\d{4}", v) for v in values[first_null:]):
            raise CheckFailed(f"a dated well follows an undated one in the list sorted by -spud_date: {values[:20]}")
        ids = [r.get_attribute("data-id") for r in rows]
        server_ids = [str(i) for i in self.fetch_json(f"collections/wells/ids?bbox={self.map_bbox()}"
                                                      f"&sortby=-spud_date")["ids"][:len(ids)]]
        if ids != server_ids:
            raise CheckFailed(f"the list's order differs from the server's for -spud_date: {ids[:5]}… vs {server_ids[:5]}…")
        print(f"PASS 5 list sorted by spud date: {len(rows)} rows in the server's order, "
              f"{len(dates)} dates non-increasing ({dates[0] if dates else '-'} … {dates[-1] if dates else '-'})")
        # A row other than the well already shown.
        row = next((r for r in rows if r.get_attribute("data-id") != clicked), rows[0])
        row_id = row.get_attribute("data-id")
        self.js("arguments[0].scrollIntoView({block: 'center'})", row)
        row.click()
        key, value = self.expect_details(row_id, "clicking its row")
        if "selected" not in (row.get_attribute("class") or ""):
            raise CheckFailed(f"row {row_id} clicked but not highlighted")
        self.screenshot("list.png")
        print(f"PASS 5b row details: row {row_id} → #details shows {key} {value!r} (list.png)")

        self.check = "7 outlines"
        self.outlines()
        self.check = "8 clusters apart"
        self.clusters_apart()
        if self.suspects is not None:
            self.check = "9 suspect"
            self.url, self.db = self.suspects
            self.driver.get(self.url)
            self.wait(f"window.wellsPage.ready at {self.url}", lambda: self.js("return !!(window.wellsPage && window.wellsPage.ready)"))
            self.suspect()

        self.check = "6 browser console"
        severe = [e for e in self.driver.get_log("browser")
                  if e.get("level") == "SEVERE" and "favicon.ico" not in e.get("message", "")]
        if severe:
            raise CheckFailed("SEVERE console messages:\n  " + "\n  ".join(e["message"] for e in severe[:10]))
        print("PASS 6 browser console: no SEVERE messages")


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server's page, e.g. http://127.0.0.1:8080/")
    parser.add_argument("--out", required=True, help="directory for the screenshots")
    parser.add_argument("--center", help="LAT,LON to go to for the pin checks (with --zoom)")
    parser.add_argument("--zoom", type=int, help="zoom level for --center")
    parser.add_argument("--wells", help="the wells executable, to check a drawn area's count with `wells count --within` (with --db)")
    parser.add_argument("--db", help="the store the server serves (with --wells)")
    parser.add_argument("--suspects-url", help="another server's page whose store has wells flagged as suspect (with --wells and --suspects-db)")
    parser.add_argument("--suspects-db", help="the store --suspects-url serves")
    args = parser.parse_args()
    center = None
    if args.center or args.zoom is not None:
        try:
            center = [float(v) for v in args.center.split(",")]
            assert len(center) == 2 and args.zoom is not None
        except (AttributeError, ValueError, AssertionError):
            parser.error("--center LAT,LON and --zoom Z go together")
    os.makedirs(args.out, exist_ok=True)

    try:
        driver = make_driver()
    except WebDriverException as e:
        print(f"FAIL startup: cannot start Chromium through /usr/bin/chromedriver: {e.msg}", file=sys.stderr)
        return 1
    suspects = (args.suspects_url, args.suspects_db) if args.suspects_url and args.suspects_db and args.wells else None
    test = MapTest(driver, args.url, args.out, args.wells, args.db, suspects)
    try:
        test.run(center, args.zoom)
        return 0
    except (CheckFailed, WebDriverException) as e:
        message = e.msg if isinstance(e, WebDriverException) else str(e)
        try:
            shot = f" (screenshot {test.screenshot('failure.png')})"
        except WebDriverException:
            shot = ""
        print(f"FAIL check {test.check}: {message}{shot}", file=sys.stderr)
        try:
            for entry in driver.get_log("browser")[-5:]:
                print(f"  console {entry.get('level')}: {entry.get('message')}", file=sys.stderr)
        except WebDriverException:
            pass
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
