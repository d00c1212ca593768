import Foundation
import JSONRPC

/// A small JSON Schema validator for the keywords the project's schemas use (draft-07 meaning): `type`,
/// `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `pattern`, `minimum`/`maximum`,
/// `minLength`/`maxLength`, `minItems`/`maxItems`, `uniqueItems`, `oneOf`/`anyOf`/`allOf`, and `$ref` as a JSON
/// pointer into `root`. Annotations (`description`, `format`, `contentEncoding`) are not checked.
public struct JSONSchemaValidator {
    /// The document `$ref`s point into.
    public let root: JSONValue

    public init(root: JSONValue) {
        self.root = root
    }

    /// Every way `instance` breaks `schema`, each with the path of the offending value; empty when it is valid.
    public func errors(_ instance: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        var errors: [String] = []
        validate(instance, schema, path, &errors, depth: 0)
        return errors
    }

    /// The value a local JSON pointer (`#/components/schemas/Campaign`) names in `document`.
    public static func resolve(_ reference: String, in document: JSONValue) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var value = document
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch value {
            case .object(let object):
                guard let next = object[key] else { return nil }
                value = next
            case .array(let array):
                guard let index = Int(key), array.indices.contains(index) else { return nil }
                value = array[index]
            default:
                return nil
            }
        }
        return value
    }

    private func validate(_ instance: JSONValue, _ schema: JSONValue, _ path: String, _ errors: inout [String], depth: Int) {
        guard depth < 64 else { return errors.append("\(path): schema references nest too deep") }
        if case .bool(let accepts) = schema {
            if !accepts { errors.append("\(path): no value is allowed here") }
            return
        }
        guard let keywords = schema.objectValue else { return errors.append("\(path): the schema is not an object") }
        if let reference = keywords["$ref"]?.stringValue {
            guard let target = Self.resolve(reference, in: root) else { return errors.append("\(path): $ref \(reference) does not resolve") }
            // Draft-07: a $ref's siblings are ignored.
            return validate(instance, target, path, &errors, depth: depth + 1)
        }
        if let type = keywords["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue].compactMap { $0 }
            if !names.contains(where: { Self.matches(instance, type: $0) }) {
                errors.append("\(path): expected \(names.joined(separator: " or ")), got \(instance.typeName)")
                return
            }
        }
        if let allowed = keywords["enum"]?.arrayValue, !allowed.contains(instance) {
            errors.append("\(path): \(instance.jsonText) is not one of \(JSONValue.array(allowed).jsonText)")
        }
        if let constant = keywords["const"], constant != instance {
            errors.append("\(path): must be \(constant.jsonText)")
        }
        switch instance {
        case .string(let text):
            let length = text.unicodeScalars.count
            if let minimum = keywords["minLength"]?.intValue, length < minimum { errors.append("\(path): shorter than \(minimum)") }
            if let maximum = keywords["maxLength"]?.intValue, length > maximum { errors.append("\(path): longer than \(maximum)") }
            if let pattern = keywords["pattern"]?.stringValue {
                if let regex = try? NSRegularExpression(pattern: pattern) {
                    if regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil {
                        errors.append("\(path): \"\(text)\" does not match \(pattern)")
                    }
                } else {
                    errors.append("\(path): the pattern \(pattern) does not compile")
                }
            }
        case .number(let number):
            if let minimum = keywords["minimum"]?.doubleValue, let value = number.double, value < minimum {
                errors.append("\(path): \(number) is below \(keywords["minimum"]!.jsonText)")
            }
            if let maximum = keywords["maximum"]?.doubleValue, let value = number.double, value > maximum {
                errors.append("\(path): \(number) is above \(keywords["maximum"]!.jsonText)")
            }
        case .array(let elements):
            if let minimum = keywords["minItems"]?.intValue, elements.count < minimum { errors.append("\(path): fewer than \(minimum) items") }
            if let maximum = keywords["maxItems"]?.intValue, elements.count > maximum { errors.append("\(path): more than \(maximum) items") }
            if keywords["uniqueItems"] == true, Set(elements).count != elements.count { errors.append("\(path): items repeat") }
            if let items = keywords["items"] {
                for (index, element) in elements.enumerated() {
                    let itemSchema = items.arrayValue.map { index < $0.count ? $0[index] : true } ?? items
                    validate(element, itemSchema, "\(path)[\(index)]", &errors, depth: depth + 1)
                }
            }
        case .object(let object):
            let properties = keywords["properties"]?.objectValue ?? JSONObject()
            for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                errors.append("\(path): \(name) is required")
            }
            for (key, value) in object {
                if let propertySchema = properties[key] {
                    validate(value, propertySchema, "\(path).\(key)", &errors, depth: depth + 1)
                } else if let additional = keywords["additionalProperties"] {
                    if additional == false {
                        errors.append("\(path): \(key) is not a known member")
                    } else {
                        validate(value, additional, "\(path).\(key)", &errors, depth: depth + 1)
                    }
                }
            }
        default:
            break
        }
        for sub in keywords["allOf"]?.arrayValue ?? [] {
            validate(instance, sub, path, &errors, depth: depth + 1)
        }
        if let choices = keywords["anyOf"]?.arrayValue,
           !choices.contains(where: { errorsOf(instance, $0, path, depth).isEmpty }) {
            errors.append("\(path): matches none of anyOf")
        }
        if let choices = keywords["oneOf"]?.arrayValue {
            let matching = choices.filter { errorsOf(instance, $0, path, depth).isEmpty }.count
            if matching != 1 { errors.append("\(path): matches \(matching) of oneOf, not exactly one") }
        }
    }

    private func errorsOf(_ instance: JSONValue, _ schema: JSONValue, _ path: String, _ depth: Int) -> [String] {
        var errors: [String] = []
        validate(instance, schema, path, &errors, depth: depth + 1)
        return errors
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array), ("object", .object):
            true
        case ("integer", .number(let number)):
            number.double.map { $0 == $0.rounded() } ?? false
        default:
            false
        }
    }
}
