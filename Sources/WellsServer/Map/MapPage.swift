/// The map page `wells serve` answers at `/`: Leaflet from Debian's libjs-leaflet (served under /assets/leaflet/),
/// a Natural Earth basemap from /basemap/countries.geojson, the wells from the clustered GeoJSON tiles under
/// /tiles/{z}/{x}/{y}.geojson, a list of the wells in view (ids from /collections/wells/ids, rows a page at a time
/// from /collections/wells/items) and a details panel (/collections/wells/items/{uwi}).
///
/// The page is three files in `Sources/WellsServer/Resources` (`map.html`, `map.css`, `map.js`), compiled into
/// the binary by SwiftPM (`.embedInCode`), so that `wells` needs nothing beside it at run time. `map.html` is
/// answered at `/`, the others under `/assets/map/`.
///
/// Self-contained apart from those: no CDN, nothing from the internet. Every URL is relative, so the page also
/// works behind a proxy that mounts the server under a path. Text from the data only ever reaches the DOM through
/// `textContent`. `window.wellsPage` (`map`, `ready`, `tilesLoading`, `listLoading`, `listSort`) is what
/// Tests/Browser/map_test.py waits on.
enum MapPage {
    /// The page itself, `map.html`.
    static let html: [UInt8] = PackageResources.map_html

    /// The page's stylesheet and script by the name they are served under, `/assets/map/NAME`.
    static let assets: [String: (contentType: String, bytes: [UInt8])] = [
        "map.css": ("text/css; charset=utf-8", PackageResources.map_css),
        "map.js": ("text/javascript; charset=utf-8", PackageResources.map_js),
    ]
}
