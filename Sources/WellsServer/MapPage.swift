/// The map page `wells serve` answers at `/`: Leaflet from Debian's libjs-leaflet (served under /assets/leaflet/),
/// a Natural Earth basemap from /basemap/countries.geojson, the wells from the clustered GeoJSON tiles under
/// /tiles/{z}/{x}/{y}.geojson, a list of the wells in view (ids from /collections/wells/ids, rows a page at a time
/// from /collections/wells/items) and a details panel (/collections/wells/items/{uwi}).
///
/// Self-contained apart from those: no CDN, nothing from the internet. Every URL is relative, so the page also
/// works behind a proxy that mounts the server under a path. Text from the data only ever reaches the DOM through
/// `textContent`. `window.wellsPage` (`map`, `ready`, `tilesLoading`, `listLoading`, `listSort`) is what
/// Tests/Browser/map_test.py waits on.
enum MapPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Wells</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="assets/leaflet/leaflet.css">
    <style>
      html, body { margin: 0; height: 100%; }
      body { display: flex; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; }
      #map { flex: 0 0 65%; height: 100%; background: #dbe8f1; }
      #side { flex: 1 1 35%; min-width: 0; display: flex; flex-direction: column; border-left: 1px solid #bbb; }
      #list-panel { flex: 1 1 55%; min-height: 0; display: flex; flex-direction: column; }
      .drawing .leaflet-marker-icon, .drawing .leaflet-interactive { pointer-events: none !important; }   /* clicks add corners */
      #area-count { font-size: 13px; }
      .bar { display: flex; align-items: center; gap: 8px; padding: 6px 10px; background: #f4f4f4; border-bottom: 1px solid #ddd; }
      #count { flex: 1; font-weight: 600; }
      #status { padding: 0 10px; font-size: 12px; color: #b00020; }
      #status:empty { display: none; }
      #list { flex: 1; min-height: 0; overflow-y: auto; }
      .well-row { display: grid; grid-template-columns: 1fr auto; column-gap: 8px; padding: 4px 10px;
                  border-bottom: 1px solid #eee; cursor: pointer; }
      .well-row:hover { background: #f1f5fa; }
      .well-row.selected { background: #d9e8f8; }
      .well-row .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 500; }
      .well-row .uwi { color: #666; font: 11px/1.3 ui-monospace, monospace; }
      .well-row .value { grid-column: 2; grid-row: 1 / span 2; align-self: center; color: #444; font-size: 12px; white-space: nowrap; }
      #more { display: block; margin: 8px auto; }
      #details { flex: 1 1 45%; min-height: 0; overflow-y: auto; padding: 8px 10px; border-top: 2px solid #bbb; }
      #details.loading { opacity: 0.6; }
      #details h2 { margin: 0; font-size: 15px; }
      #details .sub { color: #555; font: 12px ui-monospace, monospace; margin-bottom: 6px; }
      #details .hint { color: #777; }
      #details .suspect { background: #fff3cd; border-radius: 3px; padding: 4px 6px; margin: 4px 0 6px; }
      #details table { width: 100%; border-collapse: collapse; font-size: 12px; }
      #details th { width: 38%; padding: 2px 8px 2px 0; text-align: left; font-weight: normal; color: #666; vertical-align: top; }
      #details td { padding: 2px 0; overflow-wrap: anywhere; }
      #details tr + tr { border-top: 1px solid #f0f0f0; }
      #details .none { color: #aaa; }
      .wells-cluster { display: flex; align-items: center; justify-content: center; box-sizing: border-box;
                       border-radius: 50%; border: 2px solid rgba(255, 255, 255, 0.9); background: rgba(222, 110, 30, 0.8);
                       box-shadow: 0 0 0 1px rgba(140, 60, 0, 0.5); color: #fff; font: bold 11px/1 sans-serif; }
      .wells-pin { box-sizing: border-box; border-radius: 50%; border: 2px solid #fff; background: #1565c0;
                   box-shadow: 0 0 0 1px rgba(0, 0, 0, 0.45); }
      .wells-pin.selected { background: #e53935; box-shadow: 0 0 0 3px rgba(229, 57, 53, 0.45); z-index: 100000 !important; }
    </style>
    </head>
    <body>
    <div id="map"></div>
    <aside id="side">
      <section id="list-panel">
        <div class="bar">
          <span id="count">Loading…</span>
          <label>Sort <select id="sort">
            <option value="name" selected>name A→Z</option>
            <option value="-name">name Z→A</option>
            <option value="uwi">uwi ↑</option>
            <option value="-uwi">uwi ↓</option>
            <option value="status">status A→Z</option>
            <option value="-status">status Z→A</option>
            <option value="operator">operator A→Z</option>
            <option value="-operator">operator Z→A</option>
            <option value="spud_date">spud date, oldest first</option>
            <option value="-spud_date">spud date, newest first</option>
            <option value="total_depth">total depth, shallowest first</option>
            <option value="-total_depth">total depth, deepest first</option>
          </select></label>
        </div>
        <div class="bar area-bar">
          <button id="draw" type="button" title="Click the map to add corners; Finish (or click the first corner) to count the wells inside">Draw an area</button>
          <button id="clear-area" type="button" hidden>Clear</button>
          <span id="area-count" role="status" aria-live="polite"></span>
        </div>
        <div id="status" role="status" aria-live="polite"></div>
        <div id="list"><div id="rows"></div><button id="more" type="button" hidden>More</button></div>
      </section>
      <section id="details"><p class="hint">Click a well on the map or in the list to see its details.</p></section>
    </aside>
    <script src="assets/leaflet/leaflet.js"></script>
    <script>
    (function () {
      'use strict';

      const PAGE_SIZE = 50;                                      // list rows fetched per request
      const ROW_FIELDS = 'uwi,name,status,operator,spud_date,total_depth';
      // The tiles' cluster cell in tile units of 4096 a side: 512 is 32 screen pixels, room for the circles below.
      const CLUSTER_CELL = 512;
      // The order of the details table; other keys follow alphabetically, `extra.*` last.
      const FIELD_ORDER = ['uwi', 'name', 'status', 'operator', 'type', 'fluid', 'field', 'formation', 'county',
        'state', 'licence', 'spud_date', 'completion_date', 'plug_date', 'total_depth', 'ground_elevation',
        'kb_elevation', 'lat', 'lon', 'source_x', 'source_y', 'source_crs', 'wellkit_id'];

      const byId = (id) => document.getElementById(id);
      const ui = { count: byId('count'), sort: byId('sort'), status: byId('status'), list: byId('list'),
                   rows: byId('rows'), more: byId('more'), details: byId('details') };

      const map = L.map('map', { minZoom: 2, maxZoom: 18, worldCopyJump: true });
      const page = window.wellsPage = { map, ready: false, tilesLoading: 0, listLoading: false, listSort: null };
      let selectedId = null;                                     // pin id (a string) shown in the details panel

      // ---- Fetching, and the status line for errors ----

      class ProblemError extends Error {}

      // GETs JSON; a failed response throws its RFC 9457 `detail` (or title, or HTTP status).
      async function getJSON(url, signal) {
        const response = await fetch(url, { signal });
        if (!response.ok) {
          let message = `${response.status} ${response.statusText} for ${url}`;
          try {
            const problem = await response.json();
            message = problem.detail || problem.title || message;
          } catch (_) { /* not a problem document */ }
          throw new ProblemError(message);
        }
        return response.json();
      }

      function showError(err) {
        if (err.name === 'AbortError') return;                  // a request we cancelled ourselves
        ui.status.textContent = err instanceof ProblemError ? err.message : `Request failed: ${err.message}`;
      }

      function element(tag, text, className) {
        const el = document.createElement(tag);
        if (text !== undefined) el.textContent = text;
        if (className) el.className = className;
        return el;
      }

      function formatValue(value) {
        if (value === null || value === undefined || value === '') return '—';
        return typeof value === 'object' ? JSON.stringify(value) : String(value);
      }

      // ---- Basemap: Natural Earth countries in their own pane below the wells; optional ----

      map.createPane('basemap').style.zIndex = 150;
      getJSON('basemap/countries.geojson').then((countries) => {
        L.geoJSON(countries, {
          pane: 'basemap', interactive: false, attribution: 'Natural Earth',
          style: { color: '#a0a0a0', weight: 0.7, fillColor: '#ececec', fillOpacity: 1 },
        }).addTo(map);
      }).catch(() => { /* no basemap: the wells still draw on the plain background */ });

      // ---- The wells: a grid layer whose tiles are GeoJSON, drawn as markers ----

      function shortCount(n) {
        if (n >= 1e6) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`;
        if (n >= 1e3) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)}k`;
        return String(n);
      }

      // One icon class for both kinds: a pin gets its data-id and selected state each time Leaflet creates
      // its element, a cluster its count (as data-count and as its label).
      const WellIcon = L.DivIcon.extend({
        createIcon(oldIcon) {
          const el = L.DivIcon.prototype.createIcon.call(this, oldIcon);
          if (this.options.pinId !== undefined) {
            el.dataset.id = this.options.pinId;
            el.classList.toggle('selected', this.options.pinId === selectedId);
          } else {
            el.dataset.count = this.options.count;
            el.textContent = shortCount(this.options.count);
          }
          return el;
        },
      });

      function wellMarker(feature) {
        const [lon, lat] = feature.geometry.coordinates;
        const latlng = L.latLng(lat, lon);
        if (feature.id === undefined || feature.id === null) {   // a cluster: no id, count ≥ 2
          const count = feature.properties.count;
          const size = Math.round(18 + 6 * Math.log10(count));
          const marker = L.marker(latlng, {
            icon: new WellIcon({ className: 'wells-cluster', iconSize: [size, size], count }),
            title: `${count.toLocaleString('en')} wells`, keyboard: false,
          });
          marker.on('click', () => map.setView(latlng, Math.min(map.getZoom() + 2, map.getMaxZoom())));
          return marker;
        }
        const pinId = String(feature.id);
        const marker = L.marker(latlng, {
          icon: new WellIcon({ className: 'wells-pin', iconSize: [12, 12], pinId }),
          title: formatValue(feature.properties.name), riseOnHover: true,
        });
        marker.on('click', () => showDetails(pinId));
        return marker;
      }

      const WellsLayer = L.GridLayer.extend({
        initialize(options) {
          L.GridLayer.prototype.initialize.call(this, options);
          this._drawn = new Map();                               // tile key → {group, z, abort}
          this.on('tileunload', (e) => this._forget(this._tileCoordsToKey(e.coords)));
        },

        onAdd(m) {
          L.GridLayer.prototype.onAdd.call(this, m);
          m.on('zoomend', this._showTileZoom, this);
        },

        // `done` must stay a declared parameter: it tells Leaflet the tile is asynchronous.
        createTile(coords, done) {
          const tile = document.createElement('div');            // empty: the markers live in the marker pane
          tile.dataset.tile = `${coords.z}/${coords.x}/${coords.y}`;
          const key = this._tileCoordsToKey(coords);
          const entry = { group: L.layerGroup(), z: coords.z, abort: new AbortController() };
          this._drawn.set(key, entry);
          page.tilesLoading++;
          // A view across the antimeridian shows copies of the world east or west of it: fetch the
          // tile of the one world the server knows and move its wells by whole turns of 360°.
          const n = 1 << coords.z, x = ((coords.x % n) + n) % n, turns = (coords.x - x) / n;
          getJSON(`tiles/${coords.z}/${x}/${coords.y}.geojson?cell=${CLUSTER_CELL}`, entry.abort.signal)
            .then((collection) => {
              if (this._drawn.get(key) !== entry) return;      // unloaded meanwhile
              for (const feature of collection.features || []) {
                feature.geometry.coordinates[0] += 360 * turns;
                if (this._inTile(feature, coords)) entry.group.addLayer(wellMarker(feature));
              }
              if (coords.z === this._tileZoom) entry.group.addTo(this._map);  // filled first: one insertion
              done(null, tile);
            })
            .catch((err) => {
              showError(err);
              if (this._drawn.get(key) === entry) done(err, tile);  // not once unloaded: the key may be reused
            })
            .finally(() => { page.tilesLoading--; });
          return tile;
        },

        // Tiles carry a buffer of features from around them: keep those whose point lies in this very tile, so
        // that a feature near an edge is drawn once.
        _inTile(feature, coords) {
          const [lon, lat] = feature.geometry.coordinates;
          const p = this._map.project([lat, lon], coords.z).unscaleBy(this.getTileSize()).floor();
          return p.x === coords.x && p.y === coords.y;
        },

        _forget(key) {
          const entry = this._drawn.get(key);
          if (!entry) return;
          entry.abort.abort();
          entry.group.remove();
          this._drawn.delete(key);
        },

        // While Leaflet keeps the tiles of the previous zoom until the new ones load, hide their markers so
        // clusters and their own pins never show together.
        _showTileZoom() {
          for (const entry of this._drawn.values()) {
            if (entry.z === this._tileZoom) entry.group.addTo(this._map); else entry.group.remove();
          }
        },
      });

      // noWrap: the server numbers tiles 0…2^z−1 only.
      const wells = new WellsLayer({ noWrap: true, minZoom: 0, maxZoom: 22, updateWhenZooming: false });
      wells.once('load', () => { page.ready = true; });

      // ---- The list: the ids of the wells in view in the chosen order, then their rows a page at a time ----

      const list = { gen: 0, ids: [], shown: 0, sort: 'name', abort: null, timer: 0, rowsFor: null };

      function viewBbox() {
        const b = map.getBounds();
        const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
        // Longitudes of a view past ±180° wrap into one world; west > east is a box across the antimeridian.
        const wrap = (v) => ((v + 180) % 360 + 360) % 360 - 180;
        const whole = b.getEast() - b.getWest() >= 360;
        const west = whole ? -180 : wrap(b.getWest());
        let east = whole ? 180 : wrap(b.getEast());
        if (!whole && east === -180) east = 180;
        return [west, clamp(b.getSouth(), -90, 90), east, clamp(b.getNorth(), -90, 90)].map((v) => v.toFixed(6)).join(',');
      }

      // A new view or sort makes every answer in flight stale at once; the fetch itself waits ~250 ms.
      function scheduleList() {
        list.gen++;
        if (list.abort) list.abort.abort();
        page.listLoading = true;
        clearTimeout(list.timer);
        list.timer = setTimeout(refreshList, 250, list.gen);
      }

      async function refreshList(gen) {
        list.abort = new AbortController();
        const sort = ui.sort.value;
        try {
          const answer = await getJSON(`collections/wells/ids?bbox=${viewBbox()}&sortby=${encodeURIComponent(sort)}`,
                                       list.abort.signal);
          if (gen !== list.gen) return;
          list.ids = answer.ids.map(String);
          list.shown = 0;
          list.sort = sort;
          ui.rows.replaceChildren();
          ui.list.scrollTop = 0;
          const n = answer.numberMatched;
          let text = `${n.toLocaleString('en')} ${n === 1 ? 'well' : 'wells'} in view`;
          if (answer.truncated) text += ` (listing the first ${list.ids.length.toLocaleString('en')})`;
          ui.count.textContent = text;
          ui.status.textContent = '';
          await loadRows(gen);
          if (gen === list.gen) page.listSort = sort;
        } catch (err) {
          if (gen === list.gen) showError(err);
        } finally {
          if (gen === list.gen) { page.listLoading = false; updateMore(); }
        }
      }

      // Appends the next page of rows, in the order of the ids.
      async function loadRows(gen) {
        if (list.rowsFor === gen || list.shown >= list.ids.length) return;
        const ids = list.ids.slice(list.shown, list.shown + PAGE_SIZE);
        list.rowsFor = gen;
        try {
          const collection = await getJSON(`collections/wells/items?ids=${ids.map(encodeURIComponent).join(',')}`
                                           + `&properties=${ROW_FIELDS}`, list.abort.signal);
          if (gen !== list.gen) return;
          const props = new Map(collection.features.map((f) => [String((f.properties || {}).wellkit_id), f.properties || {}]));
          for (const id of ids) ui.rows.append(listRow(id, props.get(id) || {}));
          list.shown += ids.length;
        } finally {
          if (list.rowsFor === gen) list.rowsFor = null;
        }
      }

      function loadMore() {
        if (page.listLoading || list.shown >= list.ids.length) return;
        const gen = list.gen;
        page.listLoading = true;
        loadRows(gen).catch(showError).finally(() => {
          if (gen === list.gen) { page.listLoading = false; updateMore(); }
        });
      }

      function updateMore() {
        const left = list.ids.length - list.shown;
        ui.more.hidden = left <= 0;
        ui.more.textContent = `More (${left.toLocaleString('en')} left)`;
      }

      // Name and uwi, and on the right the sort field's value (the status when sorting by name or uwi).
      function listRow(id, p) {
        const field = list.sort.replace(/^-/, '');
        const shown = field === 'name' || field === 'uwi' ? 'status' : field;
        const row = element('div', undefined, 'well-row');
        row.dataset.id = id;
        row.tabIndex = 0;
        row.classList.toggle('selected', id === selectedId);
        row.append(element('span', formatValue(p.name), 'name'), element('span', formatValue(p[shown]), 'value'),
                   element('span', p.uwi == null ? '' : String(p.uwi), 'uwi'));
        return row;
      }

      ui.sort.addEventListener('change', scheduleList);
      ui.more.addEventListener('click', loadMore);
      ui.list.addEventListener('scroll', () => {
        if (ui.list.scrollTop + ui.list.clientHeight >= ui.list.scrollHeight - 80) loadMore();
      });
      ui.rows.addEventListener('click', (e) => {
        const row = e.target.closest('.well-row');
        if (row) showDetails(row.dataset.id);
      });
      ui.rows.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && e.target.classList.contains('well-row')) showDetails(e.target.dataset.id);
      });

      // ---- Details of one well ----

      const details = { gen: 0, abort: null };

      function select(id) {
        selectedId = id;
        for (const el of document.querySelectorAll('.wells-pin.selected, .well-row.selected')) el.classList.remove('selected');
        const sel = `[data-id="${CSS.escape(id)}"]`;
        for (const el of document.querySelectorAll(`.wells-pin${sel}, .well-row${sel}`)) el.classList.add('selected');
      }

      async function showDetails(id) {
        select(id);
        const gen = ++details.gen;
        if (details.abort) details.abort.abort();
        details.abort = new AbortController();
        ui.details.classList.add('loading');
        try {
          // The map and the list know a well by its internal id (wellkit_id); items/{id} takes its uwi.
          const found = await getJSON(`collections/wells/items?ids=${encodeURIComponent(id)}&properties=name`, details.abort.signal);
          if (!found.features.length) throw new ProblemError(`no well with id ${id}: the store changed; move the map to reload`);
          const feature = await getJSON(`collections/wells/items/${encodeURIComponent(found.features[0].id)}`, details.abort.signal);
          if (gen === details.gen) renderDetails(feature, id);
        } catch (err) {
          if (gen === details.gen) showError(err);
        } finally {
          if (gen === details.gen) ui.details.classList.remove('loading');
        }
      }

      function orderedKeys(props) {
        const rank = (k) => (FIELD_ORDER.includes(k) ? 0 : k.startsWith('extra.') ? 2 : 1);
        return Object.keys(props).filter((k) => k !== 'suspect').sort((a, b) =>
          rank(a) - rank(b) || (rank(a) === 0 ? FIELD_ORDER.indexOf(a) - FIELD_ORDER.indexOf(b) : a.localeCompare(b)));
      }

      // data-id is set last and names the well the server answered, so a waiting test sees the finished panel.
      function renderDetails(feature, requestedId) {
        const p = Object.assign({}, feature.properties);
        const coordinates = feature.geometry && feature.geometry.coordinates;
        if (coordinates && p.lat === undefined && p.lon === undefined) [p.lon, p.lat] = coordinates;
        const parts = [element('h2', formatValue(p.name !== null && p.name !== undefined ? p.name : p.uwi))];
        if (p.uwi !== null && p.uwi !== undefined) parts.push(element('div', String(p.uwi), 'sub'));
        if (p.suspect) {
          const why = p.suspect === true ? 'its coordinates are flagged as suspect' : formatValue(p.suspect);
          parts.push(element('div', `Suspect: ${why}`, 'suspect'));
        }
        const table = element('table');
        for (const key of orderedKeys(p)) {
          const tr = element('tr');
          const td = element('td', formatValue(p[key]));
          if (p[key] === null || p[key] === undefined || p[key] === '') td.className = 'none';
          tr.append(element('th', key), td);
          table.append(tr);
        }
        parts.push(table);
        ui.details.replaceChildren(...parts);
        ui.details.dataset.id = p.wellkit_id !== undefined && p.wellkit_id !== null ? String(p.wellkit_id) : requestedId;
      }

      // ---- The view: from the hash `#z/lat/lon`, else the collection's extent; the hash follows the map ----

      function viewFromHash() {
        const m = /^#(\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)$/.exec(location.hash);
        return m ? { zoom: Number(m[1]), center: [Number(m[2]), Number(m[3])] } : null;
      }

      async function start() {
        const fromHash = viewFromHash();
        if (fromHash) {
          map.setView(fromHash.center, fromHash.zoom);
        } else {
          let bbox = null;
          try {
            const collection = await getJSON('collections/wells');
            bbox = collection.extent && collection.extent.spatial && collection.extent.spatial.bbox
              && collection.extent.spatial.bbox[0];
          } catch (err) {
            showError(err);
          }
          // An extent across the antimeridian (west > east) is fitted east of it, one world on.
          if (bbox && bbox.length >= 4) map.fitBounds([[bbox[1], bbox[0]], [bbox[3], bbox[2] + (bbox[0] > bbox[2] ? 360 : 0)]], { maxZoom: 12 });
          else map.setView([20, 0], 2);
        }
        wells.addTo(map);
        const onMoveEnd = () => {
          const c = map.getCenter().wrap();
          history.replaceState(null, '', `#${map.getZoom()}/${c.lat.toFixed(5)}/${c.lng.toFixed(5)}`);
          scheduleList();
        };
        map.on('moveend', onMoveEnd);
        window.addEventListener('hashchange', () => {
          const v = viewFromHash();
          if (v) map.setView(v.center, v.zoom);
        });
        onMoveEnd();                                             // the first view's hash and list
      }

      // ---- An area drawn on the map, and the wells in it (CQL2: S_INTERSECTS, the server's count) ----

      const area = { drawing: false, corners: [], line: null, polygon: null, abort: null };
      page.area = area;
      const drawButton = byId('draw'), clearButton = byId('clear-area'), areaCount = byId('area-count');

      // The ring as WKT, longitude first, closed; longitudes as drawn (the server cuts at ±180°).
      function areaWKT(corners) {
        const ring = corners.concat([corners[0]]).map((p) => `${p.lng.toFixed(6)} ${p.lat.toFixed(6)}`);
        return `POLYGON((${ring.join(',')}))`;
      }

      // Back to the map's own clicks: pins, clusters and double-click zoom.
      function endDrawing() {
        area.drawing = false;
        map.doubleClickZoom.enable();
        map.getContainer().style.cursor = '';
        map.getContainer().classList.remove('drawing');
        drawButton.textContent = 'Draw an area';
      }

      function clearArea() {
        if (area.abort) area.abort.abort();
        for (const layer of [area.line, area.polygon]) if (layer) layer.remove();
        Object.assign(area, { corners: [], line: null, polygon: null, wkt: null, count: null });
        endDrawing();
        clearButton.hidden = true;
        areaCount.textContent = '';
      }

      async function finishArea() {
        if (area.corners.length < 3) { areaCount.textContent = 'An area needs three corners'; return; }
        const corners = area.corners;
        area.line.remove();
        area.line = null;
        area.polygon = L.polygon(corners, { color: '#e53935', weight: 2, fillOpacity: 0.08, interactive: false }).addTo(map);
        endDrawing();
        area.wkt = areaWKT(corners);
        areaCount.textContent = 'Counting…';
        area.abort = new AbortController();
        try {
          const filter = encodeURIComponent(`S_INTERSECTS(geometry,${area.wkt})`);
          const answer = await getJSON(`collections/wells/items?filter-lang=cql2-text&filter=${filter}&limit=1`, area.abort.signal);
          area.count = answer.numberMatched;
          areaCount.textContent = `${area.count.toLocaleString('en')} ${area.count === 1 ? 'well' : 'wells'} in the area`;
        } catch (err) {
          areaCount.textContent = '';
          showError(err);
        }
      }

      drawButton.addEventListener('click', () => {
        if (area.drawing) { finishArea(); return; }
        clearArea();
        area.drawing = true;
        map.doubleClickZoom.disable();
        map.getContainer().style.cursor = 'crosshair';
        map.getContainer().classList.add('drawing');
        drawButton.textContent = 'Finish';
        clearButton.hidden = false;
        areaCount.textContent = 'Click the map to add corners';
        area.line = L.polyline([], { color: '#e53935', weight: 2, dashArray: '4 4', interactive: false }).addTo(map);
      });
      clearButton.addEventListener('click', clearArea);
      map.on('click', (e) => {
        if (!area.drawing) return;
        const first = area.corners[0];
        // A click on the first corner (within 8 px) closes the area.
        if (first && area.corners.length >= 3 && map.latLngToContainerPoint(first).distanceTo(e.containerPoint) < 8) { finishArea(); return; }
        area.corners.push(e.latlng);
        area.line.setLatLngs(area.corners);
        areaCount.textContent = `${area.corners.length} ${area.corners.length === 1 ? 'corner' : 'corners'}; Finish when done`;
      });

      start();
    }());
    </script>
    </body>
    </html>
    """#
}
