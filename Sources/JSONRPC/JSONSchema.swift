/// A JSON Schema (draft-07 keywords) together with the named schemas it refers to by `$ref`.
///
/// Schemas are built from the types they describe (``JSONSchemaDescribable``), so the OpenRPC documents follow the
/// code. A type that is used in several places names itself (``JSONSchemaDescribable/schemaName``) and is then
/// referred to as `#/components/schemas/<name>`; the schema of every type so referred to travels in
/// ``components``, and the document gathers them.
public struct JSONSchema: Sendable, Hashable {
    /// The schema object.
    public var json: JSONValue
    /// The named schemas that `json` (or any of them) refers to, by name.
    public var components: [String: JSONValue]

    public init(_ json: JSONValue, components: [String: JSONValue] = [:]) {
        self.json = json
        self.components = components
    }

    /// Where components are referred to from, as OpenRPC documents keep them.
    public static let componentsPrefix = "#/components/schemas/"

    /// The schema with `keyword` set to `value`.
    public func with(_ keyword: String, _ value: JSONValue) -> JSONSchema {
        var copy = self
        if case .object(var object) = copy.json {
            object[keyword] = value
            copy.json = .object(object)
        }
        return copy
    }

    /// The schema with a description (a `$ref` is wrapped in `allOf`, since draft-07 ignores a `$ref`'s siblings).
    public func described(_ text: String) -> JSONSchema {
        if json["$ref"] != nil {
            return JSONSchema(["allOf": [json], "description": .string(text)], components: components)
        }
        return with("description", .string(text))
    }

    // MARK: Building

    /// A string, with the constraints given.
    public static func string(_ description: String? = nil, minLength: Int? = nil, maxLength: Int? = nil,
                              pattern: String? = nil, format: String? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "string"]
        if let minLength { object["minLength"] = .number(JSONNumber(minLength)) }
        if let maxLength { object["maxLength"] = .number(JSONNumber(maxLength)) }
        if let pattern { object["pattern"] = .string(pattern) }
        if let format { object["format"] = .string(format) }
        if let description { object["description"] = .string(description) }
        return JSONSchema(.object(object))
    }

    /// One of the given strings.
    public static func oneOf(_ values: [String], _ description: String? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "string", "enum": .array(values.map(JSONValue.string))]
        if let description { object["description"] = .string(description) }
        return JSONSchema(.object(object))
    }

    /// One of the raw values of a string enumeration, in declaration order.
    public static func cases<E: CaseIterable & RawRepresentable>(of type: E.Type, _ description: String? = nil) -> JSONSchema
    where E.RawValue == String {
        oneOf(E.allCases.map(\.rawValue), description)
    }

    /// An integer, with bounds when given.
    public static func integer(_ description: String? = nil, minimum: Int64? = nil, maximum: Int64? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "integer"]
        if let minimum { object["minimum"] = .number(JSONNumber(minimum)) }
        if let maximum { object["maximum"] = .number(JSONNumber(maximum)) }
        if let description { object["description"] = .string(description) }
        return JSONSchema(.object(object))
    }

    /// A number (integer or not).
    public static func number(_ description: String? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "number"]
        if let description { object["description"] = .string(description) }
        return JSONSchema(.object(object))
    }

    /// `true` or `false`.
    public static func boolean(_ description: String? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "boolean"]
        if let description { object["description"] = .string(description) }
        return JSONSchema(.object(object))
    }

    /// An RFC 3339 instant.
    public static func dateTime(_ description: String? = nil) -> JSONSchema {
        string(description, format: "date-time")
    }

    /// A sha256 digest as 64 lowercase hexadecimal characters.
    public static func sha256(_ description: String? = nil) -> JSONSchema {
        string(description, pattern: "^[0-9a-f]{64}$")
    }

    /// Standard base64 (RFC 4648, padded).
    public static func base64(_ description: String? = nil, minLength: Int? = nil) -> JSONSchema {
        string(description, minLength: minLength, pattern: "^[A-Za-z0-9+/]*={0,2}$", format: nil)
            .with("contentEncoding", "base64")
    }

    /// An array of `items`.
    public static func array(of items: JSONSchema, _ description: String? = nil, minItems: Int? = nil,
                             maxItems: Int? = nil, uniqueItems: Bool = false) -> JSONSchema {
        var object: JSONObject = ["type": "array", "items": items.json]
        if let minItems { object["minItems"] = .number(JSONNumber(minItems)) }
        if let maxItems { object["maxItems"] = .number(JSONNumber(maxItems)) }
        if uniqueItems { object["uniqueItems"] = true }
        if let description { object["description"] = .string(description) }
        return JSONSchema(.object(object), components: items.components)
    }

    /// An object with the given properties, in order. With `additionalProperties: false` (what the strict decoder
    /// does) a member that is not listed is refused.
    public static func object(_ properties: KeyValuePairs<String, JSONSchema>, required: [String] = [],
                              additionalProperties: Bool = false, description: String? = nil) -> JSONSchema {
        object(properties: properties.map { ($0.key, $0.value) }, required: required,
               additionalProperties: additionalProperties, description: description)
    }

    /// An object with the given properties, in order (for property lists built in parts).
    public static func object(properties: [(String, JSONSchema)], required: [String] = [],
                              additionalProperties: Bool = false, description: String? = nil) -> JSONSchema {
        var members = JSONObject()
        var components: [String: JSONValue] = [:]
        for (name, schema) in properties {
            members[name] = schema.json
            components.merge(schema.components) { first, _ in first }
        }
        var object: JSONObject = ["type": "object", "properties": .object(members)]
        if !required.isEmpty { object["required"] = .array(required.map(JSONValue.string)) }
        object["additionalProperties"] = .bool(additionalProperties)
        if let description { object["description"] = .string(description) }
        return JSONSchema(.object(object), components: components)
    }

    /// An object whose properties are the fields of `Key` (see ``JSONFieldKey``), in the order of its cases, each as
    /// `property` gives it: write `property` as a `switch` over the keys, so that a field added without a schema does
    /// not compile. The required properties are those `property` says are.
    public static func object<Key: JSONFieldKey>(_ keys: Key.Type, description: String? = nil,
                                                 _ property: (Key) -> JSONProperty) -> JSONSchema {
        let properties = Key.allCases.map { ($0.stringValue, property($0)) }
        return object(properties: properties.map { ($0.0, $0.1.schema) }, required: properties.filter(\.1.isRequired).map(\.0),
                      description: description)
    }

    /// The schema of `type`: a `$ref` to its component when it names one, else its schema inline.
    public static func of<T: JSONSchemaDescribable>(_ type: T.Type) -> JSONSchema {
        guard let name = T.schemaName else { return T.jsonSchema }
        let own = T.jsonSchema
        var components = own.components
        components[name] = own.json
        return JSONSchema(["$ref": .string(componentsPrefix + name)], components: components)
    }

    /// Accepts any JSON value.
    public static let any = JSONSchema([:])
}

/// A property of an object schema: its schema, and whether the object must have it.
public struct JSONProperty: Sendable {
    public var schema: JSONSchema
    public var isRequired: Bool

    /// A property the object must have.
    public static func required(_ schema: JSONSchema) -> JSONProperty { JSONProperty(schema: schema, isRequired: true) }
    /// A property the object may leave out.
    public static func optional(_ schema: JSONSchema) -> JSONProperty { JSONProperty(schema: schema, isRequired: false) }
}

/// A type that describes its JSON form with a JSON Schema, for the OpenRPC documents.
public protocol JSONSchemaDescribable {
    /// The schema of the type's JSON form.
    static var jsonSchema: JSONSchema { get }
    /// The name under `components/schemas` for a type used in several places; `nil` (the default) inlines it.
    static var schemaName: String? { get }
}

extension JSONSchemaDescribable {
    public static var schemaName: String? { nil }
}

extension String: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .string() }
}

extension Int: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .integer() }
}

extension Int64: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .integer() }
}

extension Bool: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .boolean() }
}

extension Double: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .number() }
}

extension JSONValue: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .any }
}

extension Array: JSONSchemaDescribable where Element: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .array(of: .of(Element.self)) }
}
