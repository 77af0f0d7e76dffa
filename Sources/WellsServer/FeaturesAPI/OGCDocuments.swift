import Foundation
import WellKit

/// The JSON documents of OGC API – Features that describe the service (landing page, conformance,
/// collections, the collection, queryables) as `Codable` values, and their encoder.
///
/// The `items` pages are not here: they are written row by row as bytes (``FeaturesAPI/items(_:parameters:lease:)``),
/// the server's hot path.
enum OGC {
    /// A link of a document (OGC API – Common's `link` schema).
    struct Link: Codable, Equatable, Sendable {
        var href: String
        var rel: String
        var type: String
        var title: String
        var templated: Bool?

        init(_ href: String, _ rel: String, _ type: String, _ title: String, templated: Bool? = nil) {
            (self.href, self.rel, self.type, self.title, self.templated) = (href, rel, type, title, templated)
        }
    }

    /// `/`: what the service is and where its parts are.
    struct Landing: Codable, Sendable {
        var title: String
        var description: String
        var links: [Link]
    }

    /// `/conformance`: the conformance classes the server implements.
    struct Conformance: Codable, Sendable {
        var conformsTo: [String]
    }

    /// `/collections`.
    struct Collections: Codable, Sendable {
        var links: [Link]
        var collections: [Collection]
    }

    /// `/collections/wells`: the collection, its extent and links.
    struct Collection: Codable, Sendable {
        struct Extent: Codable, Sendable {
            struct Spatial: Codable, Sendable {
                var bbox: [[Double]]
                var crs: String
            }
            var spatial: Spatial
        }

        var id: String
        var title: String
        var description: String
        var itemType: String
        var extent: Extent
        var crs: [String]
        var storageCrs: String
        var links: [Link]
    }

    /// `/collections/wells/queryables`: a JSON Schema (2020-12) of what a filter may name (Part 3).
    struct Queryables: Codable, Sendable {
        var schema = "https://json-schema.org/draft/2020-12/schema"
        var id: String
        var type = "object"
        var title: String
        var description: String
        var properties: [String: JSONSchema]
        var additionalProperties = false

        enum CodingKeys: String, CodingKey {
            case schema = "$schema", id = "$id", type, title, description, properties, additionalProperties
        }
    }

    /// Encodes a document as the server answers it: keys sorted (stable bytes, stable ETags' bodies),
    /// slashes unescaped (URLs read as URLs), a newline at the end.
    static func encoded(_ document: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The documents hold strings, numbers and arrays only: encoding cannot fail.
        return Array((try? encoder.encode(document)) ?? Data("{}".utf8)) + [0x0A]
    }
}

/// A JSON value in a schema: `default`, `enum` and `const` members.
enum JSONValue: Codable, Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case string(String), integer(Int), number(Double), bool(Bool)

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else { self = .string(try container.decode(String.self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}

/// The part of JSON Schema that the OpenAPI 3.0 document and the queryables use: a class, since
/// a schema holds schemas (`items`, `properties`).
final class JSONSchema: Codable, Sendable {
    let type: String?
    let format: String?
    let title: String?
    let description: String?
    let `enum`: [JSONValue]?
    let `default`: JSONValue?
    let minimum: Double?
    let maximum: Double?
    let minItems: Int?
    let maxItems: Int?
    let minLength: Int?
    let pattern: String?
    let items: JSONSchema?
    let properties: [String: JSONSchema]?
    let required: [String]?
    let nullable: Bool?
    let oneOf: [JSONSchema]?

    init(type: String? = nil, format: String? = nil, title: String? = nil, description: String? = nil, enum: [JSONValue]? = nil,
         default: JSONValue? = nil, minimum: Double? = nil, maximum: Double? = nil, minItems: Int? = nil, maxItems: Int? = nil,
         minLength: Int? = nil, pattern: String? = nil, items: JSONSchema? = nil, properties: [String: JSONSchema]? = nil,
         required: [String]? = nil, nullable: Bool? = nil, oneOf: [JSONSchema]? = nil) {
        self.type = type
        self.format = format
        self.title = title
        self.description = description
        self.enum = `enum`
        self.default = `default`
        self.minimum = minimum
        self.maximum = maximum
        self.minItems = minItems
        self.maxItems = maxItems
        self.minLength = minLength
        self.pattern = pattern
        self.items = items
        self.properties = properties
        self.required = required
        self.nullable = nullable
        self.oneOf = oneOf
    }

    static let string = JSONSchema(type: "string")
    static let integer = JSONSchema(type: "integer")
    static let number = JSONSchema(type: "number")

    /// An object with `required` members among `properties`, other members allowed.
    static func object(_ properties: [String: JSONSchema], required: [String] = []) -> JSONSchema {
        JSONSchema(type: "object", properties: properties, required: required.isEmpty ? nil : required)
    }

    static func array(of items: JSONSchema) -> JSONSchema {
        JSONSchema(type: "array", items: items)
    }

    /// A well field's value as JSON carries it, for the queryables and the items' properties.
    static func field(_ kind: WellField.Kind, title: String? = nil, nullable: Bool? = nil) -> JSONSchema {
        switch kind {
        case .integer: JSONSchema(type: "integer", format: "int64", title: title, nullable: nullable)
        case .real: JSONSchema(type: "number", title: title, nullable: nullable)
        case .text: JSONSchema(type: "string", title: title, nullable: nullable)
        // The store's dates are years 1000 to 9999 (what the loader reads as a date), and so are
        // those a filter may compare with.
        case .date: JSONSchema(type: "string", format: "date", title: title, pattern: "^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}$", nullable: nullable)
        }
    }
}
