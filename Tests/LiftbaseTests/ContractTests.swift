import Foundation
import LiftbaseCore
import LiftbaseHTTP
import PQ
import Testing

/// sql/contract against the endpoint table and the database: every endpoint described in
/// the file of its route group, with real schemas; examples that conform; ranges and enums
/// that are the ones the SQL domains enforce.
@Suite("API contract")
struct ContractTests {
    static let directory = APIContract.directory(inSQLDirectory: TestDatabase.sqlDirectory)

    static func file(_ name: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: directory + "/" + name), "\(name) is missing")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func contractFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test("every endpoint of the table has its operation, in api_<route group>.json; no operation without an endpoint")
    func everyEndpointDescribed() throws {
        let contract = try APIContract(directory: Self.directory)
        #expect(contract.undescribed(endpoints).isEmpty, "no operation in sql/contract")
        let functions = Set(endpoints.map(\.function))
        for name in try Self.contractFiles() where name.hasPrefix("api_") {
            let operations = try #require(try Self.file(name)["operations"] as? [String: Any])
            for function in operations.keys {
                let endpoint = try #require(
                    endpoints.first { $0.function == function },
                    "\(name) describes \(function), which no endpoint calls"
                )
                #expect(APIContract.fileName(for: endpoint) == name, "\(function) belongs in its route group's file")
                #expect(
                    FileManager.default.fileExists(
                        atPath: TestDatabase.sqlDirectory + "/functions/"
                            + name.replacingOccurrences(of: ".json", with: ".sql")
                    ),
                    "\(name) has no SQL file of the same name"
                )
            }
            #expect(functions.isSuperset(of: operations.keys))
        }
    }

    /// The schema a `$ref` chain ends at.
    static func resolved(_ schema: Any?, in document: [String: Any]) -> [String: Any]? {
        var schema = schema as? [String: Any]
        let validator = JSONSchemaValidator(document: document)
        while let reference = schema?["$ref"] as? String { schema = validator.resolve(reference) as? [String: Any] }
        return schema
    }

    /// Whether a schema says what it holds: members of an object, items of an array, a
    /// scalar type, or alternatives that do; never a bare `{"type": "object"}`.
    static func describes(_ schema: Any?, in document: [String: Any]) -> Bool {
        guard let schema = resolved(schema, in: document) else { return false }
        if let alternatives = (schema["anyOf"] ?? schema["oneOf"]) as? [Any] {
            return alternatives.allSatisfy { describes($0, in: document) }
        }
        if schema["const"] != nil || schema["enum"] != nil { return true }
        let types = (schema["type"] as? [String]) ?? [(schema["type"] as? String) ?? ""]
        if types.contains("object") {
            return schema["properties"] != nil || schema["additionalProperties"] is [String: Any]
        }
        if types.contains("array") { return describes(schema["items"], in: document) }
        return !types.contains("") || types == ["null"]
    }

    @Test(
        "each operation: a described answer per success status, a described body with examples that conform, error statuses with the Error schema"
    )
    func operationsAreDescribed() throws {
        let document = Conformance.document
        let validator = JSONSchemaValidator(document: document)
        for endpoint in endpoints {
            let name = "\(endpoint.method) \(endpoint.path)"
            let operation = try #require(Conformance.operation(endpoint), "\(name) is not in the document")
            let responses = try #require(operation["responses"] as? [String: [String: Any]], "\(name)")
            let success = try #require(responses[String(endpoint.status)], "\(name): no answer for \(endpoint.status)")
            if endpoint.status != 204 && endpoint.status != 202 {
                let content = try #require(success["content"] as? [String: [String: Any]], "\(name): no content")
                for (type, media) in content {
                    #expect(
                        Self.describes(media["schema"], in: document),
                        "\(name) \(type): the answer is not described"
                    )
                }
            }
            for (status, response) in responses where (Int(status) ?? 0) >= 400 {
                #expect(Conformance.resolved(response)["content"] != nil, "\(name) \(status): no error schema")
            }
            if [.POST, .PUT, .PATCH].contains(endpoint.method), let body = operation["requestBody"] as? [String: Any] {
                let content = try #require(body["content"] as? [String: [String: Any]], "\(name)")
                for (type, media) in content {
                    #expect(Self.describes(media["schema"], in: document), "\(name) \(type): the body is not described")
                    let examples = media["examples"] as? [String: [String: Any]] ?? [:]
                    // An image body is bytes: no JSON document can show one.
                    let isBinary = (media["schema"] as? [String: Any])?["format"] as? String == "binary"
                    #expect(!examples.isEmpty || isBinary, "\(name): a body without an example")
                    for (label, example) in examples {
                        let value = try #require(example["value"], "\(name) example \(label) has no value")
                        let problems = validator.problems(value, media["schema"]!)
                        #expect(problems.isEmpty, "\(name) example \(label): \(problems)")
                    }
                }
            }
            for parameter in operation["parameters"] as? [[String: Any]] ?? [] {
                let resolved = Self.resolved(parameter, in: document)
                #expect(resolved?["schema"] != nil, "\(name): parameter \(parameter) has no schema")
            }
        }
    }

    /// The member paths of a request schema as `app.request_members` writes them (`items[].name`),
    /// and whether every object on the way refuses other members.
    static func memberPaths(
        _ schema: Any?,
        prefix: String = "",
        in document: [String: Any]
    ) -> (paths: Set<String>, strict: Bool) {
        guard let schema = resolved(schema, in: document) else { return ([], true) }
        var paths: Set<String> = []
        var strict = true
        for alternative in (schema["anyOf"] ?? schema["oneOf"]) as? [Any] ?? [] {
            let inner = memberPaths(alternative, prefix: prefix, in: document)
            paths.formUnion(inner.paths)
            strict = strict && inner.strict
        }
        if let properties = schema["properties"] as? [String: Any] {
            strict = strict && schema["additionalProperties"] as? Bool == false
            for (name, member) in properties {
                let path = prefix.isEmpty ? name : prefix + "." + name
                paths.insert(path)
                let inner = memberPaths(member, prefix: path, in: document)
                paths.formUnion(inner.paths)
                strict = strict && inner.strict
            }
        }
        if let items = schema["items"] {
            let inner = memberPaths(items, prefix: prefix + "[]", in: document)
            paths.formUnion(inner.paths)
            strict = strict && inner.strict
        }
        return (paths, strict)
    }

    @Test(
        "every JSON request body refuses members it does not list, and SQL takes exactly the members the contract lists"
    )
    func requestMembersMatchSQL() throws {
        let connection = try TestDatabase.admin()
        defer { connection.close() }
        let document = Conformance.document
        var checked = 0
        for endpoint in LiftbaseCore.endpoints {
            let operation = try #require(
                (document["paths"] as? [String: Any])?[apiBasePath + endpoint.path]
                    .flatMap { ($0 as? [String: Any])?[endpoint.method.rawValue.lowercased()] } as? [String: Any]
            )
            let inSQL = try connection.query("select array_to_json(app.request_members($1))", [endpoint.function])
                .scalar.map { Set((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String] ?? []) }
            let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]
            guard let schema = (content?["application/json"] as? [String: Any])?["schema"],
                endpoint.function != "import_liftbase"
            else {
                // The CSV imports and the Liftbase import document are read leniently; a
                // route without a body has no members to check.
                #expect(inSQL == nil, "\(endpoint.function) takes no checked JSON body, but SQL lists members")
                continue
            }
            let described = Self.memberPaths(schema, in: document)
            #expect(
                described.strict,
                "\(endpoint.function): every object of its request schema says additionalProperties: false"
            )
            #expect(inSQL == described.paths, "\(endpoint.function): app.request_members and the contract differ")
            checked += 1
        }
        #expect(checked > 30, "the JSON bodies are checked")
    }

    @Test("a created row's answer links to the operations that take its id")
    func createsLink() throws {
        let document = Conformance.document
        for endpoint in endpoints where endpoint.status == 201 {
            let operation = try #require(Conformance.operation(endpoint))
            let created = try #require((operation["responses"] as? [String: [String: Any]])?["201"])
            let schema = Self.resolved(
                ((created["content"] as? [String: [String: Any]])?["application/json"])?["schema"],
                in: document
            )
            let id = Self.resolved((schema?["properties"] as? [String: Any])?["id"], in: document)
            guard id?["format"] as? String == "uuid" else { continue }
            let links = created["links"] as? [String: [String: Any]] ?? [:]
            #expect(!links.isEmpty, "\(endpoint.method) \(endpoint.path): a created row without links")
            let operationIDs = Set(endpoints.map(\.function))
            for (label, link) in links {
                #expect(
                    operationIDs.contains(link["operationId"] as? String ?? ""),
                    "\(endpoint.path) link \(label) names no operation"
                )
            }
        }
    }

    @Test("every list that reads ?limit= names limit in its operation, and cursor when it gives one out")
    func pagedListsNameTheirParameters() throws {
        // The api functions that read a page (app.page_parameters) and whether they give out
        // a cursor ('none' gives out none), from their SQL.
        let folder = TestDatabase.sqlDirectory + "/functions"
        var paged: [String: Bool] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix("api_") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for definition in text.components(separatedBy: "create or replace function api.").dropFirst() {
                let function = String(definition.prefix { $0 != "(" })
                guard
                    let call = definition.range(
                        of: #"app\.page_parameters\(p_args, '(number|uuid|none)'"#,
                        options: .regularExpression
                    )
                else { continue }
                paged[function] = !definition[call].contains("'none'")
            }
        }
        #expect(paged.count >= 14, "the test finds the paged lists: \(paged.keys.sorted())")
        let components = Conformance.document["components"] as? [String: Any]
        let shared = components?["parameters"] as? [String: [String: Any]] ?? [:]
        for (function, givesCursor) in paged.sorted(by: { $0.key < $1.key }) {
            let endpoint = try #require(endpoints.first { $0.function == function }, "\(function) has no endpoint")
            let operation = try #require(Conformance.operation(endpoint))
            let names = Set(
                (operation["parameters"] as? [[String: Any]] ?? []).compactMap { parameter -> String? in
                    guard let reference = parameter["$ref"] as? String else { return parameter["name"] as? String }
                    return shared[String(reference.split(separator: "/").last ?? "")]?["name"] as? String
                }
            )
            #expect(names.contains("limit"), "\(endpoint.path) reads ?limit= and its operation does not name it")
            if givesCursor {
                #expect(
                    names.contains("cursor"),
                    "\(endpoint.path) gives out a cursor and its operation does not name it"
                )
            }
        }
    }

    @Test("the document names its security scheme, tags every operation, and lists each tag")
    func securityAndTags() throws {
        let document = Conformance.document
        let tags = Set(((document["tags"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
        #expect(
            ((document["components"] as? [String: Any])?["securitySchemes"] as? [String: Any])?["bearer"] != nil
        )
        for endpoint in endpoints {
            let operation = try #require(Conformance.operation(endpoint))
            let operationTags = operation["tags"] as? [String] ?? []
            #expect(
                operationTags.count == 1 && tags.isSuperset(of: operationTags),
                "\(endpoint.path): \(operationTags)"
            )
            #expect((operation["security"] != nil) == endpoint.requiresAuth, "\(endpoint.path): security")
        }
    }
}

/// Numeric ranges, lengths, patterns and enums in the contract that name a domain
/// (`"x-liftbase-domain": "app.reps"`) must be the domain's own: each bound is tried against
/// the domain in the migrated database, on both sides.
@Suite("API contract agrees with the SQL domains")
struct ContractDomainTests {
    /// Every schema object of every contract file that names a domain, with where it is.
    static func annotated() throws -> [(place: String, schema: [String: Any])] {
        var found: [(String, [String: Any])] = []
        func walk(_ node: Any, _ place: String) {
            if let object = node as? [String: Any] {
                if object["x-liftbase-domain"] is String { found.append((place, object)) }
                for (key, value) in object { walk(value, place + "/" + key) }
            } else if let array = node as? [Any] {
                for (index, value) in array.enumerated() { walk(value, place + "/\(index)") }
            }
        }
        for name in try ContractTests.contractFiles() { walk(try ContractTests.file(name), name) }
        return found
    }

    /// Whether `value` (SQL text) casts to the domain.
    static func casts(_ connection: Connection, _ expression: String, _ domain: String, _ value: String) -> Bool {
        (try? connection.query("select (\(expression))::\(domain)", [value])) != nil
    }

    static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    @Test("minimum, maximum, exclusiveMinimum, multipleOf, lengths, patterns and enums match the domain checks")
    func boundsMatchDomains() throws {
        let connection = try TestDatabase.admin()
        defer { connection.close() }
        let document = Conformance.document
        let annotated = try Self.annotated()
        #expect(annotated.count > 40, "the contract names its domains")
        for (place, schema) in annotated {
            let domain = schema["x-liftbase-domain"] as! String
            let base = try #require(
                try connection.query(
                    "select format_type(t.typbasetype, t.typtypmod) from pg_type as t where t.oid = $1::regtype",
                    [domain]
                ).scalar,
                "\(place): \(domain) is not a domain"
            )
            let definition =
                try connection.query(
                    "select string_agg(pg_get_constraintdef(c.oid), ' ') from pg_constraint as c where c.contypid = $1::regtype",
                    [domain]
                ).scalar ?? ""
            let types = (schema["type"] as? [String]) ?? [(schema["type"] as? String) ?? ""]
            let label = "\(place) (\(domain): \(definition))"

            if base.hasSuffix("[]") {
                // A list domain: its items' enum, and its length bounds.
                let items =
                    types.contains("array")
                    ? ContractTests.resolved(schema["items"], in: document) ?? [:] : schema
                let values = (items["enum"] as? [Any] ?? []).compactMap { $0 as? String }
                #expect(!values.isEmpty, "\(label): name the values a list domain allows")
                for value in values {
                    #expect(Self.casts(connection, "array[$1::text]", domain, value), "\(label): \(value) is refused")
                }
                #expect(
                    !Self.casts(connection, "array[$1::text]", domain, "no such value"),
                    "\(label): accepts anything"
                )
                if let minimum = schema["minItems"] as? Int, let value = values.first {
                    let list = { (count: Int) in
                        "{" + Array(repeating: "\"\(value)\"", count: count).joined(separator: ",") + "}"
                    }
                    #expect(Self.casts(connection, "$1::text[]", domain, list(minimum)), "\(label): minItems")
                    #expect(!Self.casts(connection, "$1::text[]", domain, list(minimum - 1)), "\(label): minItems")
                    let maximum = try #require(schema["maxItems"] as? Int, "\(label): minItems without maxItems")
                    #expect(Self.casts(connection, "$1::text[]", domain, list(maximum)), "\(label): maxItems")
                    #expect(!Self.casts(connection, "$1::text[]", domain, list(maximum + 1)), "\(label): maxItems")
                }
                continue
            }

            if ["numeric", "integer"].contains(base) {
                let step = base == "integer" ? 1.0 : 0.001
                func casts(_ number: Double) -> Bool { Self.casts(connection, "$1::text", domain, Self.text(number)) }
                if let minimum = JSONSchemaValidator.number(schema["minimum"] as Any) {
                    #expect(casts(minimum) && !casts(minimum - step), "\(label): minimum \(minimum)")
                } else if let minimum = JSONSchemaValidator.number(schema["exclusiveMinimum"] as Any) {
                    #expect(!casts(minimum) && casts(minimum + step), "\(label): exclusiveMinimum \(minimum)")
                } else {
                    #expect(casts(-1e9), "\(label): the domain has a lower bound the schema does not state")
                }
                if let maximum = JSONSchemaValidator.number(schema["maximum"] as Any) {
                    #expect(casts(maximum) && !casts(maximum + step), "\(label): maximum \(maximum)")
                } else {
                    #expect(casts(1e9), "\(label): the domain has an upper bound the schema does not state")
                }
                if let multiple = JSONSchemaValidator.number(schema["multipleOf"] as Any),
                    let minimum = JSONSchemaValidator.number(schema["minimum"] as Any)
                {
                    #expect(
                        casts(minimum + multiple) && !casts(minimum + multiple / 2),
                        "\(label): multipleOf \(multiple)"
                    )
                }
                continue
            }

            // Text domains: enum, pattern, lengths.
            func castsText(_ value: String) -> Bool { Self.casts(connection, "$1::text", domain, value) }
            let literals = Set(
                definition.matches(of: /'((?:[^']|'')*)'::text/).map {
                    String($0.1).replacingOccurrences(of: "''", with: "'")
                }
            )
            if let values = schema["enum"] as? [Any] {
                let listed = Set(values.compactMap { $0 as? String })
                #expect(listed == literals, "\(label): enum \(listed.sorted()) differs from the domain's values")
                for value in listed { #expect(castsText(value), "\(label): \(value) is refused") }
                continue
            }
            #expect(literals.isEmpty || schema["pattern"] != nil, "\(label): the domain allows only some values")
            if let pattern = schema["pattern"] as? String {
                #expect(definition.contains("'\(pattern)'"), "\(label): pattern \(pattern) is not the domain's")
            }
            if let maximum = schema["maxLength"] as? Int {
                #expect(
                    castsText(String(repeating: "x", count: maximum))
                        && !castsText(String(repeating: "x", count: maximum + 1)),
                    "\(label): maxLength \(maximum)"
                )
            } else if schema["pattern"] == nil && domain != "app.timezone_name" {
                #expect(
                    castsText(String(repeating: "x", count: 100_000)),
                    "\(label): the domain limits the length, the schema does not"
                )
            }
            if let minimum = schema["minLength"] as? Int, minimum > 0 {
                #expect(
                    castsText(String(repeating: "x", count: minimum))
                        && !castsText(String(repeating: " ", count: minimum)),
                    "\(label): minLength \(minimum)"
                )
            }
        }
    }

    @Test("the muscle and template vocabularies are the tables' rows")
    func vocabularies() throws {
        let connection = try TestDatabase.admin()
        defer { connection.close() }
        let schemas = try #require(
            (Conformance.document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]]
        )
        let muscles = try connection.query("select name from app.muscles order by name").rows.compactMap { $0[0] }
        #expect((schemas["Muscle"]?["enum"] as? [String])?.sorted() == muscles)
        let templates = try connection.query("select id from app.templates order by id").rows.compactMap { $0[0] }
        #expect((schemas["TemplateId"]?["enum"] as? [String])?.sorted() == templates)
    }
}
