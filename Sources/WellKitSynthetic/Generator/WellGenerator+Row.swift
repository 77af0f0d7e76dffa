extension WellGenerator {
    // MARK: - RowSynthesizer

    /// Draws the clean rows one at a time; its state does not grow with the row count.
    struct RowSynthesizer {
        private var random: Random
        private let world: World
        private var uwis = UWIAllocator()
        private let licences: LicencePermutation
        private var name: [UInt8] = []
        private var op: [UInt8] = []
        private var hz: [UInt8] = []
        private var loc: [UInt8] = []
        private var nextIndex = 0

        private static let fluidCumulative = Catalog.formations.map { cumulative($0.fluidWeights) }
        private static let statusCumulative = cumulative(Catalog.statuses.map { $0.weight })
        private static let formationNames = Catalog.formations.map { Array($0.name.utf8) }
        private static let fluidNames = Catalog.fluids.map { Array($0.utf8) }
        private static let statusNames = Catalog.statuses.map { Array($0.name.utf8) }
        private static let statusModes = Catalog.statuses.map { Array($0.mode.utf8) }
        private static let waterModes = Catalog.waterModes.map { Array($0.utf8) }
        private static let wellTypeNames = Catalog.wellTypes.map { Array($0.utf8) }
        private static let province = Array("AB".utf8)

        private static func cumulative(_ weights: [Double]) -> [Double] {
            var total = 0.0
            return weights.map { total += $0; return total }
        }

        init(count: Int, seed: UInt64) {
            random = Random(seed: seed)
            world = World(random: &random)
            licences = LicencePermutation(domain: max(9_999_998, count), seed: seed)
        }

        /// A well position, its field (nil for the 10% uniform noise) and its reserved UWI.
        private mutating func placeWell() -> (field: Int?, lat: Double, lon: Double, location: DLSLocation, exception: Int, event: Int) {
            var attempts = 0
            while true {
                var field: Int?
                var lat: Double
                var lon: Double
                if attempts >= 64 || random.chance(0.10) {
                    lat = 49.0 + 11.0 * random.unit()
                    lon = -120.0 + 10.0 * random.unit()
                } else {
                    let index = random.pick(cumulative: world.fieldCumulative)
                    let f = world.fields[index]
                    field = index
                    repeat {
                        lat = random.gauss(f.latitude, f.sigma)
                        lon = random.gauss(f.longitude, f.sigma * 1.6)
                    } while !(lat > 49.0 && lat < 60.0 && lon > -120.0 && lon < -110.0)
                }
                let location = DLSLocation(latitude: lat, longitude: lon)
                if let slot = uwis.allocate(at: location) { // a full location: draw the well again
                    return (field, lat, lon, location, slot.exception, slot.event)
                }
                attempts += 1
            }
        }

        /// Writes the next clean 20-field record to `out`.
        mutating func writeRow(to out: inout CSVOutput) {
            let index = nextIndex
            nextIndex += 1
            let (fieldIndex, lat, lon, location, exception, event) = placeWell()
            let field = fieldIndex.map { world.fields[$0] }

            // --- attributes ---
            let company: Int
            if let field, random.chance(0.55) {
                company = random.element(of: field.operators)
            } else {
                company = random.pick(cumulative: world.companyCumulative)
            }
            let fieldName: [UInt8]
            let fieldShort: [UInt8]
            if let field {
                (fieldName, fieldShort) = (field.name, field.shortName)
            } else if random.chance(0.6) {
                (fieldName, fieldShort) = (world.wildcat, world.wildcat)
            } else {
                let other = random.element(of: world.fields)
                (fieldName, fieldShort) = (other.name, other.shortName)
            }
            let formation: Int
            if let field, random.chance(0.8) {
                formation = random.element(of: field.formations)
            } else {
                formation = random.below(Catalog.formations.count)
            }
            var fluid = random.pick(cumulative: RowSynthesizer.fluidCumulative[formation])
            let licence = Int(random.triangular(Double(CivilDate.start), Double(CivilDate.cap - 1), Double(CivilDate.peak)).rounded(.down))
            let year = CivilDate.components(of: licence).year
            let pHorizontal = year < 1995 ? 0.03 : (year < 2008 ? 0.2 : 0.8)
            let u = random.unit()
            let wellType = u < pHorizontal ? Catalog.horizontal : (u < pHorizontal + 0.1 ? Catalog.directional : Catalog.vertical)
            var status = random.pick(cumulative: RowSynthesizer.statusCumulative)
            if licence > CivilDate.cap - 120 && random.chance(0.7) { status = Catalog.issued }
            if (status == Catalog.pumping || status == Catalog.flowing) && fluid == Catalog.water { fluid = 0 }
            var mode = RowSynthesizer.statusModes[status]
            if fluid == Catalog.water && status != Catalog.issued && random.chance(0.6) {
                mode = random.element(of: RowSynthesizer.waterModes)
            }

            // --- dates (licence <= spud <= final), blank for undrilled wells ---
            var spud: Int?
            var final: Int?
            if status != Catalog.issued {
                let s = min(licence + random.int(in: 5...240), CivilDate.cap)
                let f = min(s + random.int(in: 2...(wellType == Catalog.horizontal ? 45 : 20)), CivilDate.cap)
                if random.unit() > 0.004 { spud = s }
                if random.unit() > 0.015 && status != Catalog.amended { final = f }
            }

            // --- depth and elevation ---
            var depth: Double?
            if final != nil {
                var td = Catalog.formations[formation].depth * random.uniform(0.85, 1.15)
                if wellType == Catalog.horizontal {
                    td += random.uniform(900, 3200)
                } else if wellType == Catalog.directional {
                    td *= random.uniform(1.05, 1.3)
                }
                depth = td
            }
            var ground = 650 + 85 * (-110.0 - lon) - 25 * (lat - 52.0) + random.gauss(0, 40)
            ground = min(max(ground, 170.0), 2500.0)
            let kb = ground + random.uniform(3.5, 8.0)
            let confidential = (licence > CivilDate.cap - 365 && random.chance(0.6)) || random.chance(0.004)

            makeName(company: company, fieldShort: fieldShort, location: location, wellType: wellType)

            // --- the record, in header order ---
            out.beginRecord()
            UWIAllocator.appendUWI(location, exception: exception, event: event, to: &out)
            out.appendField(name)
            out.beginField()
            out.append(fixed: lat, decimals: 6)
            out.beginField()
            out.append(fixed: lon, decimals: 6)
            out.beginField()
            out.append(decimal: licences.permute(index) + 1, width: 7)
            out.appendField(world.companies[company].name)
            out.appendField(fieldName)
            out.appendField(RowSynthesizer.formationNames[formation])
            out.appendField(RowSynthesizer.statusNames[status])
            out.appendField(RowSynthesizer.fluidNames[fluid])
            out.appendField(mode)
            out.appendField(RowSynthesizer.wellTypeNames[wellType])
            out.appendField(RowSynthesizer.province)
            out.beginField()
            out.append(date: licence)
            out.beginField()
            if let spud { out.append(date: spud) }
            out.beginField()
            if let final { out.append(date: final) }
            out.beginField()
            if let depth { out.append(fixed: depth, decimals: 1) }
            out.beginField()
            out.append(fixed: ground, decimals: 1)
            out.beginField()
            out.append(fixed: kb, decimals: 1)
            out.beginField()
            out.append(byte: UInt8(ascii: confidential ? "Y" : "N"))
            out.endRecord()
        }

        /// Builds the 15..40 character well name in `name`, e.g. `ACME HZ LEDUC 6-12-34-5`.
        private mutating func makeName(company: Int, fieldShort: [UInt8], location: DLSLocation, wellType: Int) {
            op.removeAll(keepingCapacity: true)
            op.append(contentsOf: world.companies[company].shortOperator)
            hz.removeAll(keepingCapacity: true)
            if wellType == Catalog.horizontal {
                hz.append(contentsOf: "HZ ".utf8)
            } else if wellType == Catalog.directional && random.chance(0.5) {
                hz.append(contentsOf: "DIR ".utf8)
            }
            loc.removeAll(keepingCapacity: true)
            Format.append(decimal: location.lsd, to: &loc)
            loc.append(ASCII.minus)
            Format.append(decimal: location.section, to: &loc)
            loc.append(ASCII.minus)
            Format.append(decimal: location.township, to: &loc)
            loc.append(ASCII.minus)
            Format.append(decimal: location.range, to: &loc)
            let u = random.unit()
            if u < 0.04 {
                op.append(contentsOf: random.chance(0.5) ? ", ET AL".utf8 : " ET AL,".utf8)
            } else if u < 0.042 {
                hz.append(ASCII.quote)
                hz.append(UInt8(ascii: "A") + UInt8(random.below(7)))
                hz.append(contentsOf: "\" ".utf8)
            } else if u < 0.25 {
                op.append(contentsOf: " ET AL".utf8)
            }
            name.removeAll(keepingCapacity: true)
            var opLength = op.count
            var shortLength = fieldShort.count
            if op.count + hz.count + fieldShort.count + loc.count + 2 > 40 {
                opLength = min(op.count, 40 - hz.count - loc.count - 8)
                shortLength = min(fieldShort.count, 6)
            }
            name.append(contentsOf: op[0..<opLength])
            name.append(ASCII.space)
            name.append(contentsOf: hz)
            name.append(contentsOf: fieldShort[0..<shortLength])
            name.append(ASCII.space)
            name.append(contentsOf: loc)
            if name.count > 40 { name.removeLast(name.count - 40) }
            if name.count < 15 {
                name.append(ASCII.space)
                while name.count < 15 { name.append(UInt8(ascii: "X")) }
            }
        }
    }
}
