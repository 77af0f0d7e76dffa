extension WellGenerator {
    // MARK: - World

    /// The per-seed setting every row draws from: ~2,000 licensees and ~200 gaussian fields.
    struct World {
        /// A licensee with its full name and the short operator prefix used in well names.
        struct Company {
            let name: [UInt8]
            let shortOperator: [UInt8]
        }

        /// A producing field: a gaussian cluster of wells with local formations and operators.
        struct Field {
            let name: [UInt8]
            let shortName: [UInt8]
            let latitude: Double
            let longitude: Double
            let sigma: Double
            let formations: [Int]
            var operators: [Int]
        }

        let companies: [Company]
        let companyCumulative: [Double]
        let fields: [Field]
        let fieldCumulative: [Double]
        let wildcat = Array("WILDCAT".utf8)

        /// Builds the companies and fields from `random`, advancing it.
        init(random: inout Random, companyCount: Int = 2000, fieldCount: Int = 200) {
            companies = World.makeCompanies(&random, count: companyCount)
            var total = 0.0
            let companyCumulative = (1...companyCount).map { rank in
                total += 1 / Math.pow(Double(rank), 1.1) // zipf-like popularity
                return total
            }
            self.companyCumulative = companyCumulative
            var fields = World.makeFields(&random, count: fieldCount)
            var weightTotal = 0.0
            var fieldCumulative: [Double] = []
            for _ in fields {
                weightTotal += random.logNormal(0, 1.1)
                fieldCumulative.append(weightTotal)
            }
            for index in fields.indices { // 3..6 locally dominant operators per field
                let n = random.int(in: 3...6)
                fields[index].operators = (0..<n).map { _ in random.pick(cumulative: companyCumulative) }
            }
            self.fields = fields
            self.fieldCumulative = fieldCumulative
        }

        private static func makeCompanies(_ random: inout Random, count: Int) -> [Company] {
            var names: [String] = []
            var seen = Set<String>() // membership only; never iterated
            while names.count < count {
                let parts = [
                    random.element(of: Catalog.companyRoots),
                    random.element(of: Catalog.companySecond),
                    random.element(of: Catalog.companySuffix),
                ]
                var name = parts.filter { !$0.isEmpty }.joined(separator: " ")
                if random.chance(0.08) { // numbered companies, e.g. "1234567 ALBERTA LTD."
                    name = zeroPadded(random.int(in: 300_000...2_499_999), width: 7) + " ALBERTA LTD."
                }
                if seen.insert(name).inserted { names.append(name) }
            }
            return names.map { Company(name: Array($0.utf8), shortOperator: Array(shortOperator($0).utf8)) }
        }

        /// The operator prefix of a well name: the number of a numbered company, else one or two words.
        static func shortOperator(_ name: String) -> String {
            if name.first?.isNumber == true { return String(name.prefix { $0 != " " }) }
            let plain = name.filter { $0 != "," }.split(separator: " ").map(String.init)
            if plain.count < 3 || Catalog.corporateWords.contains(plain[1]) { return plain[0] }
            return plain[0] + " " + plain[1]
        }

        private static func makeFields(_ random: inout Random, count: Int) -> [Field] {
            var names = Catalog.realFields
            var seen = Set(names)
            while names.count < count {
                let name = random.element(of: Catalog.realFields) + " " + random.element(of: Catalog.fieldDirections)
                if seen.insert(name).inserted { names.append(name) }
            }
            return names.map { name in
                let latitude = 49.15 + 10.6 * random.beta(1.4, 2.4)
                let longitude = -119.8 + 9.7 * random.unit()
                let sigma = min(max(random.logNormal(Math.log(0.08), 0.6), 0.015), 0.45)
                var pool = Array(Catalog.formations.indices) // partial Fisher-Yates sample
                let n = random.int(in: 1...3)
                for i in 0..<n { pool.swapAt(i, i + random.below(pool.count - i)) }
                return Field(
                    name: Array(name.utf8), shortName: Array(shortFieldName(name).utf8),
                    latitude: latitude, longitude: longitude, sigma: sigma,
                    formations: Array(pool[0..<n]), operators: [])
            }
        }

        /// The first word of a field name before any hyphen ("LEDUC-WOODBEND" -> "LEDUC").
        static func shortFieldName(_ name: String) -> String {
            let word = name.split(separator: " ").first ?? Substring(name)
            return String(word.split(separator: "-").first ?? word)
        }

        /// Decimal digits of a non-negative `value`, left-padded with zeros to `width`.
        static func zeroPadded(_ value: Int, width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
    }
}
