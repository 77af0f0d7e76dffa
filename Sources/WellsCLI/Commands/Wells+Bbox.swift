import ArgumentParser
import WellKit

extension Wells {
    struct Bbox: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bbox",
            abstract: "Print the wells in a bounding box, through the spatial index.",
            discussion: """
                The box is minLon,minLat,maxLon,maxLat in EPSG:4326 degrees, edges included.

                Examples:
                  wells bbox -114.2,50.9,-113.9,51.2 --db wells.sqlite
                  wells bbox -114.2,50.9,-113.9,51.2 --format geojson > calgary.geojson
                  wells bbox -90.1,35,-89.9,35.2 --where 'status = Abandoned' --format csv
                """)

        @Argument(help: ArgumentHelp("The box: minLon,minLat,maxLon,maxLat.", valueName: "box"))
        var box: BoxArgument

        @Option(help: ArgumentHelp("The CRS of the box, such as EPSG:3400; the box is then minX,minY,maxX,maxY in its units.", valueName: "crs"))
        var crs: String?

        @Option(help: "What to do with a box whose minLon is greater than its maxLon (it crosses the antimeridian).")
        var antimeridian: BoundingBox.AntimeridianRule = .split

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOptions

        func run() throws {
            var request = try query.request()
            if let crs, crs != "EPSG:4326" {
                let v = try box.corners(in: crs)
                request.region = .projectedBox(crs: crs, minX: v.minX, minY: v.minY, maxX: v.maxX, maxY: v.maxY)
                request.antimeridian = antimeridian
                try QueryRunner.run(store: try store.open(.readOnly), request: request, options: query)
                return
            }
            let degrees = try box.box()
            request.region = .box(degrees)
            request.antimeridian = antimeridian
            ArgumentSense.checkAntimeridian(degrees)
            let wellStore = try store.open(.readOnly)
            if try QueryRunner.run(store: wellStore, request: request, options: query) == 0, request.predicate == nil {
                ArgumentSense.checkBox(degrees, in: wellStore, rows: 0)
            }
        }
    }
}
