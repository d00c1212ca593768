import Foundation
import JSONRPC

/// Checks an OpenRPC 1.3 document against the rules of the specification's text: the required fields of the
/// OpenRPC, Info, Method, Content Descriptor, Error, Example Pairing and Example objects, no fields but those the
/// specification names (and `x-` extensions), unique method names, unique param names per method, required params
/// before optional ones when params may be positional, `$ref`s that resolve, and every schema a JSON Schema object
/// made of draft-07 keywords. It then validates each example pairing's params and result against the method's own
/// schemas with ``JSONSchemaValidator``.
public enum OpenRPCValidator {
    /// Every way `document` breaks the rules; empty when it is valid.
    public static func errors(_ document: JSONValue) -> [String] {
        var check = Checker(root: document)
        check.document()
        return check.errors
    }

    /// The draft-07 keywords a schema may hold.
    static let schemaKeywords: Set<String> = [
        "$id", "$schema", "$ref", "$comment", "title", "description", "default", "readOnly", "writeOnly", "examples",
        "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
        "additionalItems", "items", "maxItems", "minItems", "uniqueItems", "contains", "maxProperties", "minProperties",
        "required", "additionalProperties", "definitions", "properties", "patternProperties", "dependencies",
        "propertyNames", "const", "enum", "type", "format", "contentMediaType", "contentEncoding", "if", "then", "else",
        "allOf", "anyOf", "oneOf", "not",
    ]
    static let typeNames: Set<String> = ["null", "boolean", "object", "array", "number", "string", "integer"]

    struct Checker {
        let root: JSONValue
        var errors: [String] = []

        mutating func fail(_ path: String, _ message: String) { errors.append("\(path): \(message)") }

        /// The object at `value`, its unknown fields reported; `nil` (reported) when it is not an object.
        mutating func object(_ value: JSONValue?, _ path: String, allowed: Set<String>, required: [String]) -> JSONObject? {
            guard let value else { fail(path, "is required"); return nil }
            guard let object = value.objectValue else { fail(path, "must be an object"); return nil }
            for key in object.keys where !allowed.contains(key) && !key.hasPrefix("x-") {
                fail(path, "\(key) is not a field of this object")
            }
            for key in required where object[key] == nil { fail(path, "\(key) is required") }
            return object
        }

        mutating func string(_ value: JSONValue?, _ path: String) {
            if let value, value.stringValue == nil { fail(path, "must be a string") }
        }

        /// The object a Reference Object points to, or the value itself.
        mutating func dereference(_ value: JSONValue, _ path: String) -> (JSONValue, String)? {
            guard let reference = value["$ref"] else { return (value, path) }
            guard let text = reference.stringValue else { fail(path, "$ref must be a string"); return nil }
            guard let target = JSONSchemaValidator.resolve(text, in: root) else { fail(path, "$ref \(text) does not resolve"); return nil }
            return (target, text)
        }

        mutating func document() {
            guard let top = object(root, "$", allowed: ["openrpc", "info", "servers", "methods", "components", "externalDocs"],
                                   required: ["openrpc", "info", "methods"]) else { return }
            if let version = top["openrpc"]?.stringValue {
                if version.range(of: #"^1\.3\.[0-9]+$"#, options: .regularExpression) == nil { fail("$.openrpc", "\(version) is not a 1.3 version") }
            } else if top["openrpc"] != nil {
                fail("$.openrpc", "must be a string")
            }
            if let info = object(top["info"], "$.info", allowed: ["title", "description", "termsOfService", "version", "contact", "license"],
                                 required: ["title", "version"]) {
                string(info["title"], "$.info.title")
                string(info["version"], "$.info.version")
                string(info["description"], "$.info.description")
            }
            if let components = top["components"] {
                components_(components)
            }
            guard let methods = top["methods"]?.arrayValue else {
                if top["methods"] != nil { fail("$.methods", "must be an array") }
                return
            }
            var names = Set<String>()
            for (index, entry) in methods.enumerated() {
                guard let (value, path) = dereference(entry, "$.methods[\(index)]") else { continue }
                if let name = value["name"]?.stringValue, !names.insert(name).inserted { fail(path, "the method name \(name) repeats") }
                method(value, path)
            }
            references(root, "$")
        }

        mutating func components_(_ value: JSONValue) {
            let kinds: Set<String> = ["schemas", "links", "errors", "examples", "examplePairings", "contentDescriptors", "tags"]
            guard let components = object(value, "$.components", allowed: kinds, required: []) else { return }
            for (kind, map) in components {
                guard let entries = map.objectValue else { fail("$.components.\(kind)", "must be an object"); continue }
                for (name, entry) in entries {
                    let path = "$.components.\(kind).\(name)"
                    if name.range(of: #"^[A-Za-z0-9_.-]+$"#, options: .regularExpression) == nil { fail(path, "is not a valid component name") }
                    switch kind {
                    case "schemas": schema(entry, path)
                    case "errors": error(entry, path)
                    case "contentDescriptors": contentDescriptor(entry, path)
                    case "examples": example(entry, path)
                    default: break
                    }
                }
            }
        }

        mutating func method(_ value: JSONValue, _ path: String) {
            guard let method = object(value, path, allowed: ["name", "tags", "summary", "description", "externalDocs", "params", "result",
                                                              "deprecated", "servers", "errors", "links", "paramStructure", "examples"],
                                      required: ["name", "params"]) else { return }
            string(method["name"], "\(path).name")
            string(method["summary"], "\(path).summary")
            string(method["description"], "\(path).description")
            let structure = method["paramStructure"]?.stringValue ?? "either"
            if !["by-name", "by-position", "either"].contains(structure) { fail("\(path).paramStructure", "must be by-name, by-position or either") }
            var descriptors: [(name: String, required: Bool, schema: JSONValue)] = []
            if let params = method["params"]?.arrayValue {
                var names = Set<String>()
                for (index, entry) in params.enumerated() {
                    guard let (descriptor, descriptorPath) = dereference(entry, "\(path).params[\(index)]") else { continue }
                    contentDescriptor(descriptor, descriptorPath)
                    guard let name = descriptor["name"]?.stringValue else { continue }
                    if !names.insert(name).inserted { fail(descriptorPath, "the param name \(name) repeats") }
                    descriptors.append((name, descriptor["required"]?.boolValue ?? false, descriptor["schema"] ?? true))
                }
            } else if method["params"] != nil {
                fail("\(path).params", "must be an array")
            }
            if structure != "by-name", let firstOptional = descriptors.firstIndex(where: { !$0.required }),
               descriptors[firstOptional...].contains(where: \.required) {
                fail("\(path).params", "required params must come before optional ones when params may be positional")
            }
            var resultSchema: JSONValue?
            if let result = method["result"], let (descriptor, descriptorPath) = dereference(result, "\(path).result") {
                contentDescriptor(descriptor, descriptorPath)
                resultSchema = descriptor["schema"]
            }
            if let errors = method["errors"] {
                for (index, entry) in (errors.arrayValue ?? []).enumerated() {
                    if let (error, errorPath) = dereference(entry, "\(path).errors[\(index)]") { self.error(error, errorPath) }
                }
                if errors.arrayValue == nil { fail("\(path).errors", "must be an array") }
            }
            for (index, entry) in (method["examples"]?.arrayValue ?? []).enumerated() {
                guard let (pairing, pairingPath) = dereference(entry, "\(path).examples[\(index)]") else { continue }
                examplePairing(pairing, pairingPath, descriptors: descriptors, resultSchema: resultSchema)
            }
        }

        mutating func contentDescriptor(_ value: JSONValue, _ path: String) {
            guard let descriptor = object(value, path, allowed: ["name", "summary", "description", "required", "schema", "deprecated"],
                                          required: ["name", "schema"]) else { return }
            string(descriptor["name"], "\(path).name")
            if let required = descriptor["required"], required.boolValue == nil { fail("\(path).required", "must be a boolean") }
            if let schema = descriptor["schema"] { self.schema(schema, "\(path).schema") }
        }

        mutating func error(_ value: JSONValue, _ path: String) {
            guard let error = object(value, path, allowed: ["code", "message", "data"], required: ["code", "message"]) else { return }
            if let code = error["code"], code.intValue == nil { fail("\(path).code", "must be an integer") }
            string(error["message"], "\(path).message")
        }

        mutating func example(_ value: JSONValue, _ path: String) {
            guard let example = object(value, path, allowed: ["name", "summary", "description", "value", "externalValue"], required: []) else { return }
            if example["value"] != nil && example["externalValue"] != nil { fail(path, "value and externalValue exclude each other") }
        }

        mutating func examplePairing(_ value: JSONValue, _ path: String, descriptors: [(name: String, required: Bool, schema: JSONValue)],
                                     resultSchema: JSONValue?) {
            guard let pairing = object(value, path, allowed: ["name", "description", "summary", "params", "result"],
                                       required: ["name", "params"]) else { return }
            string(pairing["name"], "\(path).name")
            let validator = JSONSchemaValidator(root: root)
            var given = Set<String>()
            for (index, entry) in (pairing["params"]?.arrayValue ?? []).enumerated() {
                guard let (param, paramPath) = dereference(entry, "\(path).params[\(index)]") else { continue }
                example(param, paramPath)
                guard let name = param["name"]?.stringValue else { fail(paramPath, "an example param needs the name of its param"); continue }
                given.insert(name)
                guard let descriptor = descriptors.first(where: { $0.name == name }) else { fail(paramPath, "\(name) is not a param of the method"); continue }
                if let value = param["value"] { errors += validator.errors(value, against: descriptor.schema, at: "\(paramPath).value") }
            }
            for descriptor in descriptors where descriptor.required && !given.contains(descriptor.name) {
                fail("\(path).params", "the required param \(descriptor.name) is missing")
            }
            if let result = pairing["result"], let (example, examplePath) = dereference(result, "\(path).result") {
                self.example(example, examplePath)
                if let value = example["value"], let resultSchema {
                    errors += validator.errors(value, against: resultSchema, at: "\(examplePath).value")
                }
            }
        }

        /// A JSON Schema: an object (or a boolean) of draft-07 keywords with values of the right kinds.
        mutating func schema(_ value: JSONValue, _ path: String) {
            if value.boolValue != nil { return }
            guard let keywords = value.objectValue else { return fail(path, "a schema must be an object or a boolean") }
            for (keyword, argument) in keywords {
                let at = "\(path).\(keyword)"
                guard OpenRPCValidator.schemaKeywords.contains(keyword) else { fail(path, "\(keyword) is not a JSON Schema keyword"); continue }
                switch keyword {
                case "type":
                    let names = argument.arrayValue?.map { $0.stringValue } ?? [argument.stringValue]
                    if names.isEmpty || names.contains(where: { $0.map { !OpenRPCValidator.typeNames.contains($0) } ?? true }) {
                        fail(at, "must name JSON Schema types")
                    }
                case "properties", "patternProperties", "definitions":
                    guard let members = argument.objectValue else { fail(at, "must be an object"); continue }
                    for (name, sub) in members { schema(sub, "\(at).\(name)") }
                case "required":
                    let names = argument.arrayValue?.compactMap(\.stringValue)
                    if names == nil || names!.count != argument.arrayValue!.count || Set(names!).count != names!.count {
                        fail(at, "must be an array of distinct strings")
                    }
                case "enum":
                    if (argument.arrayValue ?? []).isEmpty { fail(at, "must be a non-empty array") }
                case "allOf", "anyOf", "oneOf":
                    guard let subs = argument.arrayValue, !subs.isEmpty else { fail(at, "must be a non-empty array of schemas"); continue }
                    for (index, sub) in subs.enumerated() { schema(sub, "\(at)[\(index)]") }
                case "items":
                    if let subs = argument.arrayValue {
                        for (index, sub) in subs.enumerated() { schema(sub, "\(at)[\(index)]") }
                    } else {
                        schema(argument, at)
                    }
                case "additionalProperties", "additionalItems", "not", "contains", "propertyNames", "if", "then", "else":
                    schema(argument, at)
                case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
                    if (argument.intValue ?? -1) < 0 { fail(at, "must be a non-negative integer") }
                case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf":
                    if argument.doubleValue == nil { fail(at, "must be a number") }
                case "pattern":
                    if let pattern = argument.stringValue {
                        if (try? NSRegularExpression(pattern: pattern)) == nil { fail(at, "does not compile") }
                    } else {
                        fail(at, "must be a string")
                    }
                case "uniqueItems", "readOnly", "writeOnly":
                    if argument.boolValue == nil { fail(at, "must be a boolean") }
                case "$ref", "$id", "$schema", "$comment", "title", "description", "format", "contentMediaType", "contentEncoding":
                    string(argument, at)
                default:
                    break
                }
            }
        }

        /// Every `$ref` in the document resolves.
        mutating func references(_ value: JSONValue, _ path: String) {
            switch value {
            case .object(let object):
                if let reference = object["$ref"]?.stringValue, JSONSchemaValidator.resolve(reference, in: root) == nil {
                    fail(path, "$ref \(reference) does not resolve")
                }
                for (key, member) in object { references(member, "\(path).\(key)") }
            case .array(let array):
                for (index, element) in array.enumerated() { references(element, "\(path)[\(index)]") }
            default:
                break
            }
        }
    }
}
