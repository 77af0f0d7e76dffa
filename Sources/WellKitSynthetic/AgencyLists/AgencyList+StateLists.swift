import WellKit

extension AgencyList {
    // MARK: - Texas counties

    /// The first 68 Texas counties in alphabetical order; county `i` has API (and FIPS) code `2i + 1`.
    static let texasCounties = [
        "Anderson", "Andrews", "Angelina", "Aransas", "Archer", "Armstrong", "Atascosa", "Austin",
        "Bailey", "Bandera", "Bastrop", "Baylor", "Bee", "Bell", "Bexar", "Blanco", "Borden", "Bosque",
        "Bowie", "Brazoria", "Brazos", "Brewster", "Briscoe", "Brooks", "Brown", "Burleson", "Burnet",
        "Caldwell", "Calhoun", "Callahan", "Cameron", "Camp", "Carson", "Cass", "Castro", "Chambers",
        "Cherokee", "Childress", "Clay", "Cochran", "Coke", "Coleman", "Collin", "Collingsworth",
        "Colorado", "Comal", "Comanche", "Concho", "Cooke", "Coryell", "Cottle", "Crane", "Crockett",
        "Crosby", "Culberson", "Dallam", "Dallas", "Dawson", "Deaf Smith", "Delta", "Denton", "DeWitt",
        "Dickens", "Dimmit", "Donley", "Duval", "Eastland", "Ector",
    ].map { Array($0.utf8) }

    /// The API county code of ``texasCounties`` entry `index`.
    static func texasCountyCode(_ index: Int) -> Int { 2 * index + 1 }

    /// The most records a `coordinate-errors` file can number uniquely: 100,000 per county.
    static let apiNumberCapacity = 100_000 * texasCounties.count

    /// The postal code of the state the well lies in (by the outlines loads check against), or
    /// nothing where no county's outline holds it: the `State` column is evidence a load checks.
    static func state(of well: SourceWell) -> String {
        Places.shared?.state(containing: Double(well.longitude) / 1e6, latitude: Double(well.latitude) / 1e6)?.postal ?? ""
    }

    // MARK: - damaged-ids

    /// The header of the `damaged-ids` layout.
    static let damagedIDsHeader = "Well API,Well Name,Operator,Latitude,Longitude,County,State,Spud Date,Total Depth"

    /// Writes the `damaged-ids` layout: a Texas list whose `Well API` a spreadsheet rounded.
    ///
    /// The column holds 5...12 distinct 14-digit APIs rounded to 6 significant digits, written
    /// in one style per file (`4.21235E+13` or `42123500000000`); 40% of the wells take the first
    /// value and the others one at random, so the first repeats on at least about 45% of rows.
    /// `max(1, count / 200)` records, chosen by selection sampling among all but the first, copy
    /// an earlier non-duplicate record byte for byte (CRLF included).
    func renderDamagedIDs(into text: inout Text) -> AnswerKey {
        var random = layoutRandom()
        var wells = SourceWells(count: count, seed: seed)
        let distinct = random.int(in: 5...12)
        let scientific = random.chance(0.5)
        var prefixes: [Int] = [] // six significant digits: 42, the county code, one more digit
        while prefixes.count < distinct {
            let prefix = 420_000 + Self.texasCountyCode(random.below(Self.texasCounties.count)) * 10 + random.below(10)
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        let values = prefixes.map { Self.roundedAPI($0, scientific: scientific) }
        text.append(Self.damagedIDsHeader)
        text.endLine(crlf: true)

        var key = AnswerKey(layout: .damagedIDs, records: count, identifier: .init(column: "Well API", isKey: false))
        var duplicates: [AnswerKey.Duplicate] = []
        var originals: [(bytes: Range<Int>, line: Int, value: Int)] = []
        var valueCounts = [Int](repeating: 0, count: distinct)
        var copies = SelectionSampler(picks: count >= 2 ? max(1, count / 200) : 0, candidates: count - 1)
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let line = index + 2
            if index > 0, copies.next(&random) {
                let original = originals[random.below(originals.count)]
                text.appendCopy(of: original.bytes)
                valueCounts[original.value] += 1
                duplicates.append(AnswerKey.Duplicate(line: line, sameAs: original.line))
                continue
            }
            let well = wells.next()
            let value = random.chance(0.4) ? 0 : random.below(distinct)
            let start = text.count
            text.append(values[value])
            text.append(byte: comma)
            text.append(csvField: well.name)
            text.append(byte: comma)
            text.append(csvField: well.licensee)
            text.append(byte: comma)
            text.append(microdegrees: well.latitude)
            text.append(byte: comma)
            text.append(microdegrees: well.longitude)
            text.append(byte: comma)
            text.append(csvField: Self.texasCounties[Self.cell(of: well, among: Self.texasCounties.count)])
            text.append(byte: comma)
            text.append(Self.state(of: well))
            text.append(byte: comma)
            if let spud = well.spud { text.append(usDate: spud) }
            text.append(byte: comma)
            if let feet = well.depthFeet { text.append(quotedThousands: feet) }
            text.endLine(crlf: true)
            originals.append((start..<text.count, line, value))
            valueCounts[value] += 1
        }

        let top = valueCounts.indices.max { valueCounts[$0] < valueCounts[$1] || (valueCounts[$0] == valueCounts[$1] && $0 > $1) }!
        key.identifier.distinct = valueCounts.filter { $0 > 0 }.count
        key.identifier.mostRepeated = .init(value: String(decoding: values[top], as: UTF8.self), count: valueCounts[top])
        key.duplicates = duplicates
        return key
    }

    /// A 14-digit API rounded to the six significant digits of `prefix`, as a spreadsheet shows it:
    /// `4.21235E+13` (trailing zeros of the mantissa dropped) or `42123500000000`.
    static func roundedAPI(_ prefix: Int, scientific: Bool) -> [UInt8] {
        guard scientific else { return Array(String(prefix * 100_000_000).utf8) }
        var digits = Array(String(prefix).utf8)
        while digits.count > 1, digits.last == WellGenerator.ASCII.zero { digits.removeLast() }
        var mantissa = [digits[0]]
        if digits.count > 1 { mantissa += [WellGenerator.ASCII.dot] + digits[1...] }
        return mantissa + Array("E+13".utf8)
    }

    // MARK: - coordinate-errors

    /// The header of the `coordinate-errors` layout.
    static let coordinateErrorsHeader = "API Number,Well Name,Operator,Latitude,Longitude,County,State,Status"

    /// Writes the `coordinate-errors` layout: a list with Texas-style `API Number`s (unique), the state each well
    /// truly lies in (``state(of:)``), and a few wrong coordinates.
    ///
    /// `max(1, count / 100)` rows, chosen by selection sampling, carry one error each in
    /// ``AnswerKey/Suspect/Reason`` rotation; the key lists them by line.
    func renderCoordinateErrors(into text: inout Text) -> AnswerKey {
        precondition(count <= Self.apiNumberCapacity, "coordinate-errors numbers at most \(Self.apiNumberCapacity) wells")
        var random = layoutRandom()
        var wells = SourceWells(count: count, seed: seed)
        var numbers = APINumbers(counties: Self.texasCounties.count, random: &random)
        text.append(Self.coordinateErrorsHeader)
        text.endLine(crlf: false)

        var key = AnswerKey(layout: .coordinateErrors, records: count, identifier: .init(column: "API Number", isKey: true))
        var errors = SelectionSampler(picks: count >= 2 ? max(1, count / 100) : 0, candidates: count)
        let reasons = AnswerKey.Suspect.Reason.allCases
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let well = wells.next()
            let (county, number) = numbers.next(county: Self.cell(of: well, among: Self.texasCounties.count))
            let start = text.count
            text.append("42-")
            text.append(decimal: Self.texasCountyCode(county), width: 3)
            text.append(byte: WellGenerator.ASCII.minus)
            text.append(decimal: number, width: 5)
            let api = String(decoding: text.bytes[start...], as: UTF8.self)
            text.append(byte: comma)
            text.append(csvField: well.name)
            text.append(byte: comma)
            text.append(csvField: well.licensee)
            text.append(byte: comma)
            let reason = errors.next(&random) ? reasons[key.suspects.count % reasons.count] : nil
            switch reason {
            case nil:
                text.append(microdegrees: well.latitude)
                text.append(byte: comma)
                text.append(microdegrees: well.longitude)
            case .longitudeSign:
                text.append(microdegrees: well.latitude)
                text.append(byte: comma)
                text.append(microdegrees: -well.longitude)
            case .lostDigit:
                text.append(microdegrees: well.latitude)
                text.append(byte: comma)
                Self.appendLosingDigit(well.longitude, position: random.below(3), to: &text)
            case .latitudeSign:
                text.append(microdegrees: -well.latitude)
                text.append(byte: comma)
                text.append(microdegrees: well.longitude)
            case .farFromTheOthers: // Greenland: no sign flip, swap or lost digit leads back to the wells
                text.append(microdegrees: 60_000_000 + random.below(10_000_000))
                text.append(byte: comma)
                text.append(microdegrees: -(30_000_000 + random.below(15_000_000)))
            }
            text.append(byte: comma)
            text.append(csvField: Self.texasCounties[county])
            text.append(byte: comma)
            text.append(Self.state(of: well))
            text.append(byte: comma)
            text.append(csvField: well.status)
            text.endLine(crlf: false)
            if let reason {
                key.suspects.append(.init(line: index + 2, identifier: api, reason: reason))
            }
        }
        return key
    }

    /// Appends a 3-digit-degree longitude with the integer digit at `position` (0...2) dropped:
    /// `-114.523456` becomes `-14.523456` (0 or 1) or `-11.523456` (2).
    static func appendLosingDigit(_ longitude: Int, position: Int, to text: inout Text) {
        let degrees = abs(longitude) / 1_000_000
        precondition((100...999).contains(degrees), "a lost digit needs three integer digits")
        let digits = [degrees / 100, degrees / 10 % 10, degrees % 10]
        let kept = digits.indices.filter { $0 != position }.map { digits[$0] }
        if longitude < 0 { text.append(byte: WellGenerator.ASCII.minus) }
        text.append(decimal: kept[0] * 10 + kept[1], width: 2)
        text.append(byte: WellGenerator.ASCII.dot)
        text.append(decimal: abs(longitude) % 1_000_000, width: 6)
    }

    /// Hands out unique 5-digit well numbers per county without remembering them.
    ///
    /// The k-th well of a county gets `(k * 7919 + offset) % 100_000`, a bijection for k < 100,000
    /// since 7919 is prime to 100,000; a full county passes its wells to the next one.
    struct APINumbers {
        private var used: [Int]
        private let offsets: [Int]

        init(counties: Int, random: inout WellGenerator.Random) {
            used = [Int](repeating: 0, count: counties)
            offsets = (0..<counties).map { _ in random.below(100_000) }
        }

        /// The county the next well of `county` is numbered in, and its number there.
        mutating func next(county: Int) -> (county: Int, number: Int) {
            var county = county
            while used[county] >= 100_000 { county = (county + 1) % used.count }
            defer { used[county] += 1 }
            return (county, (used[county] * 7919 + offsets[county]) % 100_000)
        }
    }
}
