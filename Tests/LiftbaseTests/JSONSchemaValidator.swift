import Foundation

/// A JSON Schema (2020-12, as OpenAPI 3.1 uses it) validator for the subset the contract
/// files use: `type` (a name or a list, `null` included), `properties`, `required`,
/// `additionalProperties`, `propertyNames`, `items`, `minItems`/`maxItems`, `enum`, `const`,
/// `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`,
/// `minLength`/`maxLength`, `pattern`, `format` (uuid, date, date-time), `$ref` into the
/// document, `oneOf`/`anyOf`/`allOf`. Annotations (`description`, `examples`, `default`,
/// `x-...`) are ignored; any other keyword is reported, so a schema never silently means
/// less than it says.
///
/// Values are what `JSONSerialization` makes of JSON: `NSNull`, booleans (`NSNumber` of
/// type `c`), numbers, `String`, `[Any]`, `[String: Any]`.
struct JSONSchemaValidator {
    /// The document `$ref`s point into (`#/components/schemas/Name`).
    let document: [String: Any]
    /// When set, an object member that a schema with `properties` does not list (and whose
    /// schema says nothing of `additionalProperties`) is a problem: the contract must name
    /// everything the server answers, though clients may ignore what they do not know.
    var undeclaredPropertiesAreProblems = false

    static let annotations: Set<String> = [
        "description", "examples", "example", "default", "title", "deprecated", "readOnly", "writeOnly",
        "$comment",
    ]
    static let keywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "propertyNames", "items", "minItems", "maxItems",
        "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
        "maxLength", "pattern", "format", "$ref", "oneOf", "anyOf", "allOf",
    ]

    /// Every way `value` breaks `schema`, each as "path: problem"; empty when it conforms.
    func problems(_ value: Any, _ schema: Any, at path: String = "$") -> [String] {
        guard let schema = schema as? [String: Any] else {
            if let allowed = schema as? Bool { return allowed ? [] : ["\(path): no value is allowed here"] }
            return ["\(path): the schema is not an object"]
        }
        var found: [String] = []
        for key in schema.keys
        where !Self.keywords.contains(key) && !Self.annotations.contains(key) && !key.hasPrefix("x-") {
            found.append("\(path): the validator does not know the keyword \(key)")
        }
        if let reference = schema["$ref"] as? String {
            guard let target = resolve(reference) else { return found + ["\(path): unresolvable $ref \(reference)"] }
            found += problems(value, target, at: path)
        }
        let kind = Self.kind(of: value)

        if let types = schema["type"] {
            let names = (types as? [String]) ?? [(types as? String) ?? "?"]
            let matches = names.contains { name in
                name == kind || (name == "number" && kind == "integer")
                    || (name == "integer" && kind == "number" && Self.isIntegral(value))
            }
            if !matches { return found + ["\(path): is \(kind), expected \(names.joined(separator: " or "))"] }
        }
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { Self.equal($0, value) }) {
            found.append("\(path): \(Self.text(value)) is not one of \(allowed.map(Self.text).joined(separator: ", "))")
        }
        if let constant = schema["const"], !Self.equal(constant, value) {
            found.append("\(path): \(Self.text(value)) is not \(Self.text(constant))")
        }

        if let number = Self.number(value) {
            if let minimum = Self.number(schema["minimum"] as Any), number < minimum {
                found.append("\(path): \(number) is below the minimum \(minimum)")
            }
            if let maximum = Self.number(schema["maximum"] as Any), number > maximum {
                found.append("\(path): \(number) is above the maximum \(maximum)")
            }
            if let minimum = Self.number(schema["exclusiveMinimum"] as Any), number <= minimum {
                found.append("\(path): \(number) is not above \(minimum)")
            }
            if let maximum = Self.number(schema["exclusiveMaximum"] as Any), number >= maximum {
                found.append("\(path): \(number) is not below \(maximum)")
            }
            if let step = Self.number(schema["multipleOf"] as Any), step > 0 {
                let quotient = number / step
                if abs(quotient - quotient.rounded()) > 1e-9 {
                    found.append("\(path): \(number) is not a multiple of \(step)")
                }
            }
        }

        if let string = value as? String {
            let length = string.count
            if let minimum = schema["minLength"] as? Int, length < minimum {
                found.append("\(path): shorter than \(minimum) characters")
            }
            if let maximum = schema["maxLength"] as? Int, length > maximum {
                found.append("\(path): longer than \(maximum) characters")
            }
            if let pattern = schema["pattern"] as? String, string.range(of: pattern, options: .regularExpression) == nil
            {
                found.append("\(path): \(Self.text(value)) does not match \(pattern)")
            }
            if let format = schema["format"] as? String, let formatPattern = Self.formats[format],
                string.range(of: formatPattern, options: .regularExpression) == nil
            {
                found.append("\(path): \(Self.text(value)) is not a \(format)")
            }
        }

        if let array = value as? [Any] {
            if let minimum = schema["minItems"] as? Int, array.count < minimum {
                found.append("\(path): fewer than \(minimum) items")
            }
            if let maximum = schema["maxItems"] as? Int, array.count > maximum {
                found.append("\(path): more than \(maximum) items")
            }
            if let items = schema["items"] {
                for (index, item) in array.enumerated() { found += problems(item, items, at: "\(path)[\(index)]") }
            }
        }

        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                found.append("\(path): lacks the required member \(name)")
            }
            for (name, member) in object.sorted(by: { $0.key < $1.key }) {
                if let names = schema["propertyNames"] { found += problems(name, names, at: "\(path) member name") }
                if let property = properties[name] {
                    found += problems(member, property, at: "\(path).\(name)")
                } else if let additional = schema["additionalProperties"] {
                    found += problems(member, additional, at: "\(path).\(name)")
                } else if undeclaredPropertiesAreProblems && schema["properties"] != nil {
                    found.append("\(path): has \(name), which the schema does not declare")
                }
            }
        }

        if let all = schema["allOf"] as? [Any] {
            for part in all { found += problems(value, part, at: path) }
        }
        if let any = schema["anyOf"] as? [Any], !any.contains(where: { problems(value, $0, at: path).isEmpty }) {
            found.append("\(path): matches none of anyOf: " + Self.closest(any.map { problems(value, $0, at: path) }))
        }
        if let one = schema["oneOf"] as? [Any] {
            let results = one.map { problems(value, $0, at: path) }
            let matching = results.filter(\.isEmpty).count
            if matching == 0 { found.append("\(path): matches none of oneOf: " + Self.closest(results)) }
            if matching > 1 { found.append("\(path): matches \(matching) schemas of oneOf, not one") }
        }
        return found
    }

    /// The target of a local `$ref` (`#/components/schemas/Name`, JSON Pointer escapes).
    func resolve(_ reference: String) -> Any? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any = document
        for token in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = (node as? [String: Any])?[key] else { return nil }
            node = next
        }
        return node
    }

    static let formats: [String: String] = [
        "uuid": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        "date": "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
        "date-time":
            "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$",
    ]

    /// The JSON type of a value: null, boolean, integer, number, string, array or object.
    static func kind(of value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let number as NSNumber where String(cString: number.objCType) == "c": return "boolean"
        case let number as NSNumber:
            return ["d", "f"].contains(String(cString: number.objCType)) ? "number" : "integer"
        case is String: return "string"
        case is [Any]: return "array"
        case is [String: Any]: return "object"
        default: return "unknown (\(type(of: value)))"
        }
    }

    static func isIntegral(_ value: Any) -> Bool {
        guard let number = number(value) else { return false }
        return number.rounded() == number && abs(number) < 9.007e15
    }

    /// A JSON number (never a boolean) as a Double.
    static func number(_ value: Any) -> Double? {
        let kind = kind(of: value)
        guard kind == "integer" || kind == "number", let number = value as? NSNumber else { return nil }
        return number.doubleValue
    }

    /// JSON equality: numbers by value, booleans apart from numbers, arrays and objects deeply.
    static func equal(_ a: Any, _ b: Any) -> Bool {
        let (kindA, kindB) = (kind(of: a), kind(of: b))
        if let x = number(a), let y = number(b) { return x == y }
        guard kindA == kindB else { return false }
        switch a {
        case is NSNull: return true
        case let x as String: return x == b as? String
        case let x as NSNumber: return x.boolValue == (b as? NSNumber)?.boolValue
        case let x as [Any]:
            guard let y = b as? [Any], x.count == y.count else { return false }
            return zip(x, y).allSatisfy { equal($0, $1) }
        case let x as [String: Any]:
            guard let y = b as? [String: Any], Set(x.keys) == Set(y.keys) else { return false }
            return x.allSatisfy { key, value in equal(value, y[key]!) }
        default: return false
        }
    }

    static func text(_ value: Any) -> String {
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) {
            let text = String(decoding: data, as: UTF8.self)
            return text.count > 80 ? String(text.prefix(77)) + "..." : text
        }
        return "\(value)"
    }

    /// The problems of the alternative that came closest, to say why none matched.
    static func closest(_ results: [[String]]) -> String {
        (results.min { $0.count < $1.count } ?? []).joined(separator: "; ")
    }
}
