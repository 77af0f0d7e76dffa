(function () {
  'use strict';

  const PAGE_SIZE = 50;                                      // list rows fetched per request
  const ROW_FIELDS = 'uwi,name,status,operator,spud_date,total_depth';
  // The tiles' cluster cell in tile units of 4096 a side: 1024 is 64 screen pixels. Each cluster is drawn inside
  // its own cell, clear of its edges by a pin's half, so no two clusters overlap, nor a cluster and a pin.
  const CLUSTER_CELL = 1024;
  const CELL_PX = CLUSTER_CELL / 4096 * 256;
  const PIN_SIZE = 12;
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

  // ---- Basemap: countries, US states and counties, each in its own pane below the wells, at the zooms where
  //      they help; names at each outline's `label` point. Optional: without it the wells draw on the plain background ----

  const BASEMAP = [
    { name: 'countries', pane: 'basemap', minZoom: 0, attribution: 'Natural Earth',
      style: { color: '#a0a0a0', weight: 0.7, fillColor: '#ececec', fillOpacity: 1 } },
    { name: 'counties', pane: 'counties', minZoom: 6, labels: [9, 99], attribution: 'US Census Bureau',
      style: { color: '#b8b0a8', weight: 0.6, fill: false } },
    { name: 'states', pane: 'states', minZoom: 3, labels: [4, 7], style: { color: '#8c8378', weight: 1.2, fill: false } },
  ];
  const basemap = page.basemap = {};                       // name → {geojson, layer, labels, loading}
  BASEMAP.forEach((spec, k) => { map.createPane(spec.pane).style.zIndex = 150 + k; });
  map.createPane('basemap-labels').style.zIndex = 160;
  map.getPane('basemap-labels').style.pointerEvents = 'none';

  // A name on the map: its text through textContent, centred on its point.
  const LabelIcon = L.DivIcon.extend({
    createIcon(oldIcon) {
      const el = L.DivIcon.prototype.createIcon.call(this, oldIcon);
      el.replaceChildren(element('span', this.options.text));
      return el;
    },
  });

  function label(feature) {
    const [lon, lat] = feature.properties.label;
    return L.marker([lat, lon], { pane: 'basemap-labels', interactive: false, keyboard: false,
      icon: new LabelIcon({ className: `basemap-label ${feature.properties.kind}-label`, iconSize: null, text: feature.properties.name }) });
  }

  // Shows each layer at its zooms, fetched the first time it is needed; its labels at theirs (in view only).
  function updateBasemap() {
    const z = map.getZoom();
    for (const spec of BASEMAP) {
      const entry = basemap[spec.name] || (basemap[spec.name] = { layer: null, labels: L.layerGroup(), loading: false });
      if (z < spec.minZoom) {
        if (entry.layer) entry.layer.remove();
        entry.labels.remove();
        continue;
      }
      if (!entry.layer) {
        if (!entry.loading) {
          entry.loading = true;
          getJSON(`basemap/${spec.name}.geojson`).then((collection) => {
            entry.geojson = collection;
            entry.layer = L.geoJSON(collection, { pane: spec.pane, interactive: false, attribution: spec.attribution,
                                                  style: Object.assign({ className: `basemap-${spec.name}` }, spec.style) });
            updateBasemap();
          }).catch(() => { /* this layer stays off */ });
        }
        continue;
      }
      entry.layer.addTo(map);
      const showLabels = spec.labels && z >= spec.labels[0] && z <= spec.labels[1];
      entry.labels.clearLayers();
      if (showLabels) {
        const view = map.getBounds().pad(0.2);
        for (const feature of entry.geojson.features) {
          const point = feature.properties.label;
          if (point && view.contains([point[1], point[0]])) entry.labels.addLayer(label(feature));
        }
        entry.labels.addTo(map);
      } else {
        entry.labels.remove();
      }
    }
  }
  map.on('zoomend moveend', updateBasemap);

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
      if (this.options.suspects) el.dataset.suspects = this.options.suspects;
      return el;
    },
  });

  // A cluster's circle grows with its count up to what its cell holds, and sits at its wells' mean position moved
  // just enough to keep it inside its cell, a pin's half clear of the edges (z: the tile's zoom, whose grid it is).
  function clusterPlace(latlng, count, z) {
    const size = Math.min(CELL_PX - PIN_SIZE - 2, Math.round(20 + 6 * Math.log10(count)));
    const p = map.project(latlng, z), half = size / 2 + PIN_SIZE / 2 + 1;
    const fit = (v) => { const cell = Math.floor(v / CELL_PX) * CELL_PX; return Math.min(cell + CELL_PX - half, Math.max(cell + half, v)); };
    return { size, latlng: map.unproject(L.point(fit(p.x), fit(p.y)), z) };
  }

  function wellMarker(feature, z) {
    const [lon, lat] = feature.geometry.coordinates;
    const latlng = L.latLng(lat, lon);
    const suspects = feature.properties.suspects || 0;
    if (feature.id === undefined || feature.id === null) {   // a cluster: no id, count ≥ 2
      const count = feature.properties.count;
      const place = clusterPlace(latlng, count, z);
      const flagged = suspects ? `, ${suspects.toLocaleString('en')} flagged as suspect` : '';
      const marker = L.marker(place.latlng, {
        icon: new WellIcon({ className: suspects ? 'wells-cluster has-suspects' : 'wells-cluster', iconSize: [place.size, place.size], count, suspects }),
        title: `${count.toLocaleString('en')} wells${flagged}`, keyboard: false,
      });
      marker.on('click', () => map.setView(place.latlng, Math.min(map.getZoom() + 2, map.getMaxZoom())));
      return marker;
    }
    const pinId = String(feature.id);
    // A well its load flagged as suspect: another colour and shape, and above the others.
    const marker = L.marker(latlng, {
      icon: new WellIcon({ className: suspects ? 'wells-pin suspect' : 'wells-pin', iconSize: [PIN_SIZE, PIN_SIZE], pinId, suspects }),
      title: formatValue(feature.properties.name) + (suspects ? ' (suspect coordinates)' : ''), riseOnHover: true,
      zIndexOffset: suspects ? 1000 : 0,
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
            if (this._inTile(feature, coords)) entry.group.addLayer(wellMarker(feature, coords.z));
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
    updateBasemap();
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
