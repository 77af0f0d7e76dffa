extension WellGenerator {
    // MARK: - Catalog

    /// Fixed vocabularies of the synthetic well list (Alberta field, formation and company names).
    enum Catalog {
        static let realFields = [
            "PEMBINA", "SWAN HILLS", "REDWATER", "LEDUC-WOODBEND", "RAINBOW", "JUDY CREEK",
            "WIZARD LAKE", "RED EARTH", "PROVOST", "WAINWRIGHT", "LLOYDMINSTER", "COLD LAKE",
            "ATHABASCA", "PEACE RIVER", "ELMWORTH", "KAYBOB SOUTH", "WAPITI", "BRAZEAU RIVER",
            "CAROLINE", "CROSSFIELD", "MEDICINE HAT", "SUFFIELD", "CESSFORD", "HAYS", "TABER",
            "BOW ISLAND", "COUNTESS", "GILBY", "WILLESDEN GREEN", "FERRIER", "STURGEON LAKE",
            "VIRGINIA HILLS", "HOUSE MOUNTAIN", "VALHALLA", "GRANDE PRAIRIE", "DUNVEGAN",
            "SYLVAN LAKE", "HARMATTAN-ELKTON", "TURNER VALLEY", "WATERTON", "BONNIE GLEN",
            "GARRINGTON", "INNISFAIL", "JOFFRE", "STETTLER", "BIG VALLEY", "DRUMHELLER",
            "WAYNE-ROSEDALE", "CHIGWELL", "GHOST PINE", "VIKING-KINSELLA", "BELLSHILL LAKE",
            "BASHAW", "CHAUVIN", "MORGAN", "LINDBERGH", "ELK POINT", "BONNYVILLE", "SUNDAY CREEK",
            "MITSUE", "NIPISI", "UTIKUMA", "SLAVE", "ZAMA", "SHEKILIE", "HAMBURG", "BOYER",
            "CHINCHAGA", "KARR", "PIPESTONE", "SIMONETTE", "FOX CREEK", "KAYBOB", "WHITECOURT",
            "EDSON", "HANLAN-ROBB", "BRAZEAU", "MEDICINE RIVER", "CLIVE", "ALDERSON", "WESTEROSE",
            "PENHOLD", "ACHESON", "GLEN PARK", "RICINUS", "STRACHAN", "BLACKSTONE", "LEAFLAND",
        ]

        static let fieldDirections = ["NORTH", "SOUTH", "EAST", "WEST", "CENTRAL"]

        /// A producing formation: typical depth in metres and fluid weights in ``fluids`` order.
        struct Formation {
            let name: String
            let depth: Double
            let fluidWeights: [Double]
        }

        static let formations: [Formation] = [
            .init(name: "BELLY RIVER", depth: 900, fluidWeights: [5, 4, 1, 0]),
            .init(name: "VIKING", depth: 750, fluidWeights: [5, 5, 1, 0]),
            .init(name: "CARDIUM", depth: 1600, fluidWeights: [7, 3, 1, 0]),
            .init(name: "MANNVILLE", depth: 1100, fluidWeights: [4, 5, 1, 0]),
            .init(name: "GLAUCONITIC", depth: 1450, fluidWeights: [4, 6, 1, 0]),
            .init(name: "LEDUC", depth: 1750, fluidWeights: [5, 3, 2, 0]),
            .init(name: "NISKU", depth: 1700, fluidWeights: [5, 4, 1, 0]),
            .init(name: "WABAMUN", depth: 2000, fluidWeights: [3, 6, 1, 0]),
            .init(name: "BANFF", depth: 1300, fluidWeights: [5, 4, 1, 0]),
            .init(name: "MONTNEY", depth: 2500, fluidWeights: [3, 7, 0, 0]),
            .init(name: "DUVERNAY", depth: 3300, fluidWeights: [4, 6, 0, 0]),
            .init(name: "SWAN HILLS", depth: 2600, fluidWeights: [7, 3, 1, 0]),
            .init(name: "SLAVE POINT", depth: 1900, fluidWeights: [6, 3, 1, 0]),
            .init(name: "KEG RIVER", depth: 1700, fluidWeights: [6, 3, 1, 0]),
            .init(name: "GRANITE WASH", depth: 1600, fluidWeights: [6, 3, 1, 0]),
            .init(name: "BLUESKY", depth: 1250, fluidWeights: [3, 6, 1, 0]),
            .init(name: "GETHING", depth: 1500, fluidWeights: [2, 7, 1, 0]),
            .init(name: "MCMURRAY", depth: 350, fluidWeights: [0, 1, 1, 9]),
            .init(name: "CLEARWATER", depth: 450, fluidWeights: [1, 1, 1, 7]),
            .init(name: "SPARKY", depth: 650, fluidWeights: [6, 1, 1, 3]),
            .init(name: "LLOYDMINSTER", depth: 600, fluidWeights: [6, 1, 1, 3]),
            .init(name: "COLONY", depth: 550, fluidWeights: [1, 8, 1, 0]),
            .init(name: "EDMONTON", depth: 500, fluidWeights: [0, 9, 1, 0]),
            .init(name: "ELLERSLIE", depth: 1500, fluidWeights: [5, 5, 1, 0]),
            .init(name: "RUNDLE", depth: 2200, fluidWeights: [3, 6, 1, 0]),
            .init(name: "MEDICINE HAT", depth: 450, fluidWeights: [0, 10, 0, 0]),
            .init(name: "MILK RIVER", depth: 400, fluidWeights: [0, 10, 0, 0]),
            .init(name: "BASAL QUARTZ", depth: 1400, fluidWeights: [5, 5, 1, 0]),
        ]

        static let fluids = ["Crude Oil", "Gas", "Water", "Crude Bitumen"]
        static let water = 2

        /// Licence status names, their relative weights, and the production mode each implies.
        static let statuses: [(name: String, weight: Double, mode: String)] = [
            ("Abandoned", 29, "Abandoned"), ("Pumping", 16, "Pumping"), ("Flowing", 15, "Flowing"),
            ("Suspended", 14, "Suspended"), ("Drilled and Cased", 6, "Not Applicable"),
            ("Cased", 3, "Not Applicable"), ("Issued", 2.5, "Not Applicable"),
            ("Amended", 1.5, "Not Applicable"), ("Junked and Abandoned", 1, "Abandoned"),
            ("Reclamation Certified", 6, "Abandoned"), ("Closed", 2, "Closed"),
            ("Re-Entered", 1, "Not Applicable"), ("Abandoned Zone", 3, "Abandoned"),
        ]
        static let pumping = 1, flowing = 2, issued = 6, amended = 7

        /// Modes of water wells that are not producing.
        static let waterModes = ["Injection", "Disposal", "Observation", "Source"]

        static let wellTypes = ["Vertical", "Directional", "Horizontal"]
        static let vertical = 0, directional = 1, horizontal = 2

        static let companyRoots = [
            "ACME", "NORTHERN", "PRAIRIE", "CHINOOK", "BOW", "ATHABASCA", "PEACE", "RIDGE",
            "SUMMIT", "FOOTHILLS", "BADLANDS", "PARKLAND", "ASPEN", "TAMARACK", "SPRUCE",
            "JUNIPER", "CEDAR", "WILLOW", "MAPLE", "BIRCH", "CARIBOU", "BISON", "ELK", "MOOSE",
            "FALCON", "HAWK", "EAGLE", "RAVEN", "OSPREY", "PRONGHORN", "COUGAR", "GRIZZLY",
            "WOLF", "LYNX", "BEAVER", "OTTER", "HERON", "PELICAN", "STURGEON", "PIKE", "WALLEYE",
            "NORDIC", "POLAR", "AURORA", "MERIDIAN", "PARALLEL", "TRIDENT", "KESTREL", "TALON",
            "CRESCENT", "HORIZON", "ZENITH", "APEX", "VERTEX", "NEXUS", "VECTOR", "QUANTUM",
            "PINNACLE", "KEYSTONE", "CORNERSTONE", "BEDROCK", "GRANITE", "BASALT", "QUARTZ",
            "SHALE", "LIMESTONE", "DOLOMITE", "SANDSTONE", "CANYON", "COULEE", "MESA", "BUTTE",
            "VALLEY", "PRAIRIE SKY", "BIG SKY", "HIGH PLAINS", "RED DEER", "BATTLE RIVER",
            "SMOKY", "WAPITI", "PEMBINA", "SWAN", "VIKING", "CARDIUM", "LEDUC", "NISKU",
            "WABAMUN", "BANFF", "RUNDLE", "MONTNEY", "DUVERNAY", "GETHING", "BLUESKY",
            "CLEARWATER", "MCMURRAY", "COLONY", "SPARKY", "ELLERSLIE", "TABER", "HAYS",
            "CROSSFIELD", "CAROLINE", "JOFFRE", "STETTLER", "BASHAW", "VERMILION", "BONNYVILLE",
            "LAKELAND", "WESTLOCK", "BARRHEAD", "WHITECOURT", "EDSON", "HINTON", "JASPER",
            "KANANASKIS", "WATERTON", "CYPRESS", "MILK RIVER", "OLDMAN", "CROWSNEST",
        ]
        static let companySecond = [
            "", "", "", "", "WEST", "NORTH", "SOUTH", "EAST", "RIVER", "LAKE", "CREEK", "HILLS",
            "POINT", "BAY", "ROCK", "STAR", "SUN", "FIRE", "STONE", "GATE", "CREST", "FIELD",
        ]
        static let companySuffix = [
            "RESOURCES LTD.", "ENERGY INC.", "PETROLEUM LTD.", "OIL & GAS LTD.",
            "EXPLORATION LTD.", "OPERATING CORP.", "ENERGY CORP.", "CANADA LTD.",
            "ENERGY LTD.", "RESOURCES INC.", "PRODUCTION CORP.", "OIL CORP.",
            "RESOURCES, LTD.", "ENERGY PARTNERSHIP", "PETROLEUMS LIMITED",
            "ENERGY LTD., BY ITS GENERAL PARTNER",
        ]
        /// Second words that make a short operator name a single word ("ACME ENERGY INC." -> "ACME").
        static let corporateWords: Set<String> = [
            "RESOURCES", "ENERGY", "PETROLEUM", "OIL", "EXPLORATION", "OPERATING",
            "CANADA", "PRODUCTION", "PETROLEUMS",
        ]

        /// DLS location-exception codes, in the order a repeated surface location uses them.
        static let locationExceptions: [[UInt8]] = {
            var codes = ["00"] + (2...9).map { "0\($0)" }
            for letter in "ABCDEF" {
                for digit in 0...9 { codes.append("\(letter)\(digit)") }
            }
            return codes.map { Array($0.utf8) }
        }()
    }
}
