import Foundation
import Testing

/// The validator the conformance checks rely on: each keyword must both accept and refuse,
/// or a broken schema could pass every HTTP test unseen.
@Suite("JSON Schema validator")
struct JSONSchemaValidatorTests {
    let validator = JSONSchemaValidator(
        document: [
            "components": [
                "schemas": [
                    "Id": ["type": "string", "format": "uuid"],
                    "Node": [
                        "type": "object", "required": ["id"],
                        "properties": ["id": ["$ref": "#/components/schemas/Id"]],
                    ],
                ]
            ]
        ]
    )

    /// `text` parsed as JSON (fragments allowed), as responses are.
    func json(_ text: String) -> Any {
        try! JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
    }

    func accepts(_ value: String, _ schema: [String: Any]) -> Bool {
        validator.problems(json(value), schema).isEmpty
    }

    @Test("type: names and lists of names, null, integer within number, booleans apart from numbers")
    func types() {
        #expect(accepts("1", ["type": "integer"]))
        #expect(accepts("100.0", ["type": "integer"]))
        #expect(!accepts("1.5", ["type": "integer"]))
        #expect(accepts("1.5", ["type": "number"]))
        #expect(accepts("1", ["type": "number"]))
        #expect(!accepts("true", ["type": "integer"]))
        #expect(!accepts("1", ["type": "boolean"]))
        #expect(accepts("false", ["type": "boolean"]))
        #expect(accepts("null", ["type": ["string", "null"]]))
        #expect(!accepts("null", ["type": "string"]))
        #expect(accepts(#""x""#, ["type": ["string", "null"]]))
        #expect(!accepts("{}", ["type": "array"]))
        #expect(accepts("[]", ["type": "array"]))
        #expect(!accepts("[]", ["type": "object"]))
    }

    @Test("properties, required, additionalProperties, propertyNames, undeclared members when strict")
    func objects() {
        let schema: [String: Any] = [
            "type": "object", "required": ["a"], "properties": ["a": ["type": "integer"], "b": ["type": "string"]],
        ]
        #expect(accepts(#"{"a": 1, "b": "x"}"#, schema))
        #expect(!accepts(#"{"b": "x"}"#, schema))
        #expect(!accepts(#"{"a": "1"}"#, schema))
        #expect(accepts(#"{"a": 1, "c": true}"#, schema))
        var strict = validator
        strict.undeclaredPropertiesAreProblems = true
        #expect(!strict.problems(json(#"{"a": 1, "c": true}"#), schema).isEmpty)
        #expect(strict.problems(json(#"{"a": 1}"#), schema).isEmpty)
        #expect(!accepts(#"{"a": 1, "c": true}"#, schema.merging(["additionalProperties": false]) { $1 }))
        let map: [String: Any] = [
            "type": "object", "propertyNames": ["enum": ["x", "y"]], "additionalProperties": ["type": "number"],
        ]
        #expect(accepts(#"{"x": 1.5, "y": 2}"#, map))
        #expect(!accepts(#"{"z": 1}"#, map))
        #expect(!accepts(#"{"x": "1"}"#, map))
    }

    @Test("items, minItems, maxItems")
    func arrays() {
        let schema: [String: Any] = ["type": "array", "items": ["type": "string"], "minItems": 1, "maxItems": 2]
        #expect(accepts(#"["a"]"#, schema))
        #expect(!accepts("[]", schema))
        #expect(!accepts(#"["a", "b", "c"]"#, schema))
        #expect(!accepts(#"["a", 1]"#, schema))
    }

    @Test("enum and const, with null and numbers by value")
    func enumsAndConstants() {
        #expect(accepts(#""male""#, ["enum": ["male", "female"]]))
        #expect(!accepts(#""other""#, ["enum": ["male", "female"]]))
        #expect(accepts("null", ["type": ["string", "null"], "enum": ["a", NSNull()]]))
        #expect(accepts("0.0", ["const": 0]))
        #expect(!accepts("1", ["const": 0]))
        #expect(!accepts("false", ["const": 0]))
        #expect(accepts(#""liftbase-export""#, ["const": "liftbase-export"]))
    }

    @Test("minimum, maximum, exclusive bounds, multipleOf")
    func ranges() {
        let schema: [String: Any] = ["type": "number", "minimum": 1, "maximum": 10, "multipleOf": 0.5]
        #expect(accepts("1", schema))
        #expect(accepts("10", schema))
        #expect(accepts("7.5", schema))
        #expect(!accepts("0.5", schema))
        #expect(!accepts("10.5", schema))
        #expect(!accepts("7.25", schema))
        #expect(!accepts("0", ["exclusiveMinimum": 0]))
        #expect(accepts("0.01", ["exclusiveMinimum": 0]))
        #expect(!accepts("5", ["exclusiveMaximum": 5]))
    }

    @Test("minLength, maxLength, pattern, formats uuid, date, date-time")
    func strings() {
        #expect(!accepts(#""""#, ["minLength": 1]))
        #expect(accepts(#""ab""#, ["maxLength": 2]))
        #expect(!accepts(#""abc""#, ["maxLength": 2]))
        #expect(accepts(#""18:30""#, ["pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"]))
        #expect(!accepts(#""24:00""#, ["pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"]))
        #expect(accepts(#""6f1c2d8e-0b7a-4c1e-9a55-3d2f8e7b9c10""#, ["format": "uuid"]))
        #expect(!accepts(#""not-a-uuid""#, ["format": "uuid"]))
        #expect(accepts(#""2026-05-01""#, ["format": "date"]))
        #expect(!accepts(#""2026-5-1""#, ["format": "date"]))
        #expect(accepts(#""2026-05-01T06:30:00.123456+00:00""#, ["format": "date-time"]))
        #expect(accepts(#""2026-05-01T06:30:00Z""#, ["format": "date-time"]))
        #expect(!accepts(#""2026-05-01 06:30:00""#, ["format": "date-time"]))
    }

    @Test("$ref into the document, anyOf, oneOf, allOf")
    func composition() {
        #expect(accepts(#"{"id": "6f1c2d8e-0b7a-4c1e-9a55-3d2f8e7b9c10"}"#, ["$ref": "#/components/schemas/Node"]))
        #expect(!accepts(#"{"id": "x"}"#, ["$ref": "#/components/schemas/Node"]))
        #expect(!accepts("{}", ["$ref": "#/components/schemas/Missing"]))
        let nullable: [String: Any] = ["anyOf": [["$ref": "#/components/schemas/Node"], ["type": "null"]]]
        #expect(accepts("null", nullable))
        #expect(!accepts(#"{"id": 1}"#, nullable))
        let one: [String: Any] = ["oneOf": [["type": "integer"], ["type": "number"]]]
        #expect(accepts("1.5", one))
        #expect(!accepts("1", one))
        #expect(!accepts("2", ["allOf": [["minimum": 1], ["maximum": 1]]]))
    }

    @Test("a keyword the validator does not know is a problem, never ignored")
    func unknownKeywords() {
        #expect(!accepts("1", ["dependentRequired": [:] as [String: Any]]))
        #expect(accepts("1", ["description": "x", "x-liftbase-domain": "app.reps", "examples": [1]]))
    }
}
