import Foundation
import Hummingbird
import Synchronization
import WellKit

/// The map page's background as GeoJSON, under `/basemap/NAME.geojson`: the world's countries (filled
/// land), the US states and the US counties (outlines), each feature with its `name` and a `label`
/// point inside it for the page to write the name at.
///
/// The outlines are those compiled into WellKit for the load's place checks (``Places``: Natural
/// Earth 1:50m countries, US Census 1:20M counties and the states made of them), so the server carries
/// no second copy; `--basemap FILE.shp` replaces the countries with a shapefile's polygons
/// (``Shapefile/geoJSON(path:)``). Each layer is made on its first request, so that the server starts without
/// waiting for outlines no page has asked for, and kept for the server's life, with an ETag of its bytes, so
/// that a browser revalidates it across restarts.
final class Basemap: Sendable {
    enum Layer: String, CaseIterable, Sendable {
        case countries, states, counties

        var kind: Places.Kind {
            switch self {
            case .countries: .country
            case .states: .state
            case .counties: .county
            }
        }
    }

    /// A layer as served: its GeoJSON and the ETag of those bytes.
    struct Document: Sendable {
        let bytes: [UInt8]
        let etag: String
    }

    /// Decimal places of the coordinates written: 4 is about 11 m, far finer than the outlines'
    /// own 1–2 km; more digits would only make the layers (the counties' above all) larger.
    static let decimals = 4

    /// The countries of `--basemap FILE.shp`, read at start so that a bad file is reported then; nil without it.
    private let countriesShapefile: Result<Document, any Error>?
    private let made = Mutex<[Layer: Document]>([:])

    init(countriesShapefile path: String?) {
        countriesShapefile = path.map { path in Result { Self.document(Array(try Shapefile.geoJSON(path: path).utf8), .countries) } }
    }

    /// Why the `--basemap` shapefile gives no countries, or nil.
    var problem: (any Error)? {
        if case .failure(let error) = countriesShapefile { return error }
        return nil
    }

    /// The layer's document, made on first use.
    ///
    /// - Throws: the shapefile's error for the countries of a `--basemap` that cannot be read, or
    ///   ``Problem`` 404 when WellKit's outlines are missing (`places.tsv`, `places.bin`).
    func document(_ layer: Layer) throws -> Document {
        if layer == .countries, let countriesShapefile { return try countriesShapefile.get() }
        return try made.withLock { made in
            if let document = made[layer] { return document }
            guard let places = Places.shared else {
                throw Problem(.notFound, "no \(layer.rawValue) outlines: WellKit's places.tsv and places.bin are missing beside wells; set WELLKIT_PLACES to their folder")
            }
            let document = Self.document(Self.geoJSON(places.outlines(layer.kind), kind: layer.kind), layer)
            made[layer] = document
            return document
        }
    }

    private static func document(_ bytes: [UInt8], _ layer: Layer) -> Document {
        // FNV-1a: the same bytes give the same ETag in every run.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Document(bytes: bytes, etag: "\"basemap-\(layer.rawValue)-\(String(hash, radix: 36))\"")
    }

    /// The outlines as a FeatureCollection of MultiPolygons (RFC 7946: outer rings counter-clockwise,
    /// holes clockwise), each feature's `id` its code, with `name`, `label` and for a county `lsad`
    /// and `state`.
    static func geoJSON(_ outlines: [Places.Outline], kind: Places.Kind) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(outlines.reduce(0) { $0 + $1.polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count * 10 } } } + 100 * outlines.count)
        func append(_ text: String) { out += text.utf8 }
        func append(number value: Float) {
            let scaled = Int((Double(value) * pow(10, Double(decimals))).rounded())
            if scaled < 0 { out.append(UInt8(ascii: "-")) }
            let magnitude = abs(scaled)
            var power = 1
            for _ in 0..<decimals { power *= 10 }
            out += String(magnitude / power).utf8
            var fraction = magnitude % power, digits = decimals
            while digits > 0, fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            if digits > 0 {
                out.append(UInt8(ascii: "."))
                let text = String(fraction)
                out += repeatElement(UInt8(ascii: "0"), count: digits - text.count)
                out += text.utf8
            }
        }
        func append(quoted text: String) {
            var quoted = ""
            ExtraJSON.appendQuoted(text, to: &quoted)
            append(quoted)
        }
        append(#"{"type":"FeatureCollection","features":["#)
        for (k, outline) in outlines.enumerated() {
            if k > 0 { append(",") }
            append(#"{"type":"Feature","id":"#)
            append(quoted: outline.code)
            append(#","properties":{"kind":"\#(kind.rawValue)","name":"#)
            append(quoted: outline.name)
            if let lsad = outline.lsad { append(#","lsad":"#); append(quoted: lsad) }
            if let state = outline.state { append(#","state":"#); append(quoted: state) }
            if let label = labelPoint(outline) {
                append(#","label":["#); append(number: label.longitude); append(","); append(number: label.latitude); append("]")
            }
            append(#"},"geometry":{"type":"MultiPolygon","coordinates":["#)
            for (p, polygon) in outline.polygons.enumerated() {
                append(p > 0 ? ",[" : "[")
                for (r, ring) in polygon.enumerated() {
                    append(r > 0 ? ",[" : "[")
                    // Outer rings counter-clockwise, holes clockwise.
                    let reversed = (Places.signedArea(ring) > 0) != (r == 0)
                    let count = ring.count / 2
                    for n in 0..<count {
                        let i = ring.startIndex + 2 * (reversed ? count - 1 - n : n)
                        append(n > 0 ? ",[" : "[")
                        append(number: ring[i]); append(","); append(number: ring[i + 1])
                        append("]")
                    }
                    append("]")
                }
                append("]")
            }
            append("]}}")
        }
        append("]}")
        return out
    }

    /// Where to write the place's name: inside its largest polygon, at the middle of the widest span
    /// across it on the latitude of its outer ring's centroid (the centroid itself may lie outside,
    /// as Florida's or Michigan's would).
    static func labelPoint(_ outline: Places.Outline) -> (longitude: Float, latitude: Float)? {
        guard let polygon = outline.polygons.max(by: { abs(Places.signedArea($0[0])) < abs(Places.signedArea($1[0])) }) else { return nil }
        let outer = polygon[0]
        var area = 0.0, cx = 0.0, cy = 0.0
        var k = outer.startIndex
        while k + 3 < outer.endIndex {
            let x1 = Double(outer[k]), y1 = Double(outer[k + 1]), x2 = Double(outer[k + 2]), y2 = Double(outer[k + 3])
            let cross = x1 * y2 - x2 * y1
            area += cross
            cx += (x1 + x2) * cross
            cy += (y1 + y2) * cross
            k += 2
        }
        guard area != 0 else { return (outer[outer.startIndex], outer[outer.startIndex + 1]) }
        cx /= 3 * area
        cy /= 3 * area
        // The rings' crossings of the line y = cy, in order: inside between each pair.
        var crossings: [Double] = []
        for ring in polygon {
            var k = ring.startIndex
            while k + 3 < ring.endIndex {
                let x1 = Double(ring[k]), y1 = Double(ring[k + 1]), x2 = Double(ring[k + 2]), y2 = Double(ring[k + 3])
                if (y1 > cy) != (y2 > cy) { crossings.append(x1 + (cy - y1) * (x2 - x1) / (y2 - y1)) }
                k += 2
            }
        }
        crossings.sort()
        var best: (width: Double, x: Double)?
        var i = 0
        while i + 1 < crossings.count {
            let width = crossings[i + 1] - crossings[i]
            if best.map({ width > $0.width }) ?? true { best = (width, (crossings[i] + crossings[i + 1]) / 2) }
            i += 2
        }
        return (Float(best?.x ?? cx), Float(cy))
    }
}

extension WellsServer {
    /// `/basemap/NAME.geojson`: a ``Basemap`` layer with its ETag (a `304` when the client holds it),
    /// kept a day by the browser.
    ///
    /// - Throws: ``Problem`` 404 for a name that is no layer, or a layer that cannot be made.
    func basemapResponse(_ request: Request, name: String) throws -> Response {
        let layers = Basemap.Layer.allCases.map { $0.rawValue + ".geojson" }
        guard name.hasSuffix(".geojson"), let layer = Basemap.Layer(rawValue: String(name.dropLast(".geojson".count))) else {
            throw Problem(.notFound, "no basemap '\(FeatureQuery.shown(name))'; there are \(layers.joined(separator: ", "))")
        }
        let document: Basemap.Document
        do { document = try basemap.document(layer) } catch let problem as Problem { throw problem } catch {
            throw Problem(.notFound, "no \(layer.rawValue): \(error); check --basemap FILE.shp, or leave it out for the countries WellKit ships")
        }
        // Compressed as the client asks (the counties are megabytes), with an ETag per coding.
        let coding = ContentCoding.negotiate(request, contentType: FeaturesAPI.geoJSON)
        let etag = coding.map { String(document.etag.dropLast()) + $0.suffix + "\"" } ?? document.etag
        var headers: HTTPFields = [.cacheControl: "max-age=86400", .eTag: etag, .vary: "Accept-Encoding"]
        if Self.request(request, holds: etag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = FeaturesAPI.geoJSON
        let (body, applied) = basemapCoded.body(ByteBuffer(bytes: document.bytes), named: layer.rawValue, in: coding)
        headers[.contentEncoding] = applied?.rawValue
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
