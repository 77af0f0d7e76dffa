import Foundation

/// A US state, DC or Puerto Rico: its FIPS code, postal code and name.
package struct USState: Sendable, Equatable {
    package var fips: String
    package var postal: String
    package var name: String

    static let all: [USState] = """
        01 AL Alabama|02 AK Alaska|04 AZ Arizona|05 AR Arkansas|06 CA California|08 CO Colorado|09 CT Connecticut|10 DE Delaware|\
        11 DC District of Columbia|12 FL Florida|13 GA Georgia|15 HI Hawaii|16 ID Idaho|17 IL Illinois|18 IN Indiana|19 IA Iowa|\
        20 KS Kansas|21 KY Kentucky|22 LA Louisiana|23 ME Maine|24 MD Maryland|25 MA Massachusetts|26 MI Michigan|27 MN Minnesota|\
        28 MS Mississippi|29 MO Missouri|30 MT Montana|31 NE Nebraska|32 NV Nevada|33 NH New Hampshire|34 NJ New Jersey|\
        35 NM New Mexico|36 NY New York|37 NC North Carolina|38 ND North Dakota|39 OH Ohio|40 OK Oklahoma|41 OR Oregon|\
        42 PA Pennsylvania|44 RI Rhode Island|45 SC South Carolina|46 SD South Dakota|47 TN Tennessee|48 TX Texas|49 UT Utah|\
        50 VT Vermont|51 VA Virginia|53 WA Washington|54 WV West Virginia|55 WI Wisconsin|56 WY Wyoming|72 PR Puerto Rico
        """.split(separator: "|").map { entry in
        let parts = entry.split(separator: " ", maxSplits: 2).map(String.init)
        return USState(fips: parts[0], postal: parts[1], name: parts[2])
    }

    private static let byKey: [String: USState] = {
        var keys: [String: USState] = [:]
        for state in all {
            keys[state.postal] = state
            keys[state.name.uppercased()] = state
            keys["STATE OF " + state.name.uppercased()] = state
        }
        return keys
    }()

    /// The state a cell names: a postal code (`OK`), a name (`Oklahoma`, any case), or, when
    /// `fips` allows it, a FIPS code (`40`, `040`).
    static func named(_ text: String, fips: Bool) -> USState? {
        let key = text.trimmingCharacters(in: .whitespaces).uppercased()
        if let state = byKey[key] { return state }
        if fips, let number = Int(key), key.count <= 3 {
            let code = number < 10 ? "0\(number)" : "\(number)"
            return all.first { $0.fips == code }
        }
        return nil
    }
}

extension USState {
    /// The state whose code begins a US well's API number (`41-133-21968`: 41, Tennessee), when the
    /// bytes are one: 10, 12 or 14 digits, the first 2 a state code of the API's list (the states and
    /// the District of Columbia in alphabetical order, 01–49 for the conterminous ones, then 50
    /// Alaska and 51 Hawaii), dashes or spaces between the parts. 9, 11 or 13 digits are such a
    /// number whose leading zero a spreadsheet dropped (`4029200010000`: 04, California). Codes 55
    /// and above (federal waters) name no state.
    static func ofAPINumber(_ bytes: some Collection<UInt8>) -> USState? {
        var digits = 0, code = 0, first = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if digits == 0 { first = Int(byte - UInt8(ascii: "0")) }
                if digits < 2 { code = code * 10 + Int(byte - UInt8(ascii: "0")) }
                digits += 1
            case UInt8(ascii: "-"):
                guard digits > 0 else { return nil }
            case UInt8(ascii: " "):
                continue
            default:
                return nil
            }
        }
        guard (9...14).contains(digits) else { return nil }
        if digits % 2 == 1 { code = first }
        guard (1...51).contains(code) else { return nil }
        return byAPICode[code - 1]
    }

    /// The states by API state code, less one.
    private static let byAPICode: [USState] = """
        AL AZ AR CA CO CT DE DC FL GA ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR \
        PA RI SC SD TN TX UT VT VA WA WV WI WY AK HI
        """.split(separator: " ").map { postal in all.first { $0.postal == postal }! }
}

/// Canadian provinces and territories, by postal abbreviation and name: checked against Canada's outline.
enum CanadianProvince {
    static let names: Set<String> = [
        "AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT", "ALBERTA", "BRITISH COLUMBIA", "MANITOBA",
        "NEW BRUNSWICK", "NEWFOUNDLAND AND LABRADOR", "NOVA SCOTIA", "NORTHWEST TERRITORIES", "NUNAVUT", "ONTARIO",
        "PRINCE EDWARD ISLAND", "QUEBEC", "SASKATCHEWAN", "YUKON",
    ]
}
