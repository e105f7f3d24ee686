import Foundation
import LiftbaseCore

/// The contract files of `sql/contract`: for each route group, `api_<group>.json` maps every
/// api function of that group to its operation (description, parameters, request body,
/// responses with their schemas, examples and links), beside `components.json` (shared
/// schemas, parameters, tags). They describe; SQL decides: nothing here validates a request.
/// Immutable once read: `@unchecked` only because the JSON values are `Any`.
public struct APIContract: @unchecked Sendable {
    /// One operation of a contract file, with the file's tag and its named link sets.
    struct Operation: @unchecked Sendable {
        let object: [String: Any]
        let tag: String?
        let file: String
        let links: [String: Any]
    }

    /// `components.json`: `schemas`, `parameters` and `tags` (an ordered list).
    let components: [String: Any]
    /// By api function name.
    let operations: [String: Operation]

    /// Reads `<directory>/components.json` and every `<directory>/api_*.json`. A malformed
    /// file, or a function described twice, is an error naming the file.
    public init(directory: String) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        func object(_ name: String) throws -> [String: Any] {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ContractError("\(path): unreadable")
            }
            do {
                guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                    throw ContractError("\(path): not a JSON object")
                }
                return object
            } catch let error as ContractError {
                throw error
            } catch {
                throw ContractError("\(path): not valid JSON")
            }
        }
        guard files.contains("components.json") else { throw ContractError("\(directory)/components.json is missing") }
        components = try object("components.json")
        var operations: [String: Operation] = [:]
        for file in files where file.hasPrefix("api_") && file.hasSuffix(".json") {
            let contents = try object(file)
            guard let described = contents["operations"] as? [String: Any] else {
                throw ContractError("\(file): no \"operations\" object")
            }
            for (function, value) in described {
                guard let operation = value as? [String: Any] else {
                    throw ContractError("\(file): operation \(function) is not an object")
                }
                if let other = operations[function] {
                    throw ContractError("\(file): \(function) is described in \(other.file) too")
                }
                operations[function] = Operation(
                    object: operation,
                    tag: contents["tag"] as? String,
                    file: file,
                    links: contents["links"] as? [String: Any] ?? [:]
                )
            }
        }
        self.operations = operations
    }

    /// The functions of `endpoints` that no contract file describes.
    public func undescribed(_ endpoints: [Endpoint]) -> [String] {
        endpoints.map(\.function).filter { operations[$0] == nil }
    }

    /// Names the file of the contract directory that a route group's operations belong in.
    public static func fileName(for endpoint: Endpoint) -> String {
        // Named as the route group's SQL file is: /progress-photos → api_progress_photos.json.
        "api_\((endpoint.pathSegments.first.map(String.init) ?? "root").replacingOccurrences(of: "-", with: "_")).json"
    }

    /// The contract folder inside a sql directory.
    public static func directory(inSQLDirectory sqlDirectory: String) -> String {
        (sqlDirectory as NSString).appendingPathComponent("contract")
    }
}

public struct ContractError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = "contract: " + description }
}

/// OpenAPI 3.1 for every route of the endpoint table and the operational routes: paths,
/// methods, security, tags and operation ids from the table, everything a client needs to
/// know about bodies and answers from the contract files.
public enum OpenAPIDocument {
    public static func json(for endpoints: [Endpoint], contract: APIContract) -> String {
        let data = try! JSONSerialization.data(
            withJSONObject: document(for: endpoints, contract: contract),
            options: [.sortedKeys, .withoutEscapingSlashes]
        )
        return String(decoding: data, as: UTF8.self)
    }

    public static func document(for endpoints: [Endpoint], contract: APIContract) -> [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for endpoint in endpoints {
            paths[apiBasePath + endpoint.path, default: [:]][endpoint.method.rawValue.lowercased()] = operation(
                endpoint,
                contract.operations[endpoint.function],
                schemas: contract.components["schemas"] as? [String: Any] ?? [:]
            )
        }
        for (path, operation) in operationalPaths { paths[path] = ["get": operation] }

        var components = contract.components
        let tags = components.removeValue(forKey: "tags") as? [Any] ?? []
        components["responses"] = errorResponses
        components["securitySchemes"] = [
            "bearer": [
                "type": "http", "scheme": "bearer",
                "description": "The token of POST /auth/register or /auth/login.",
            ]
        ]
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Liftbase API",
                "version": "1",
                "description": """
                The HTTP API of Liftbase: JSON in and out under /api/v1. Every request is one SQL \
                statement, so one transaction. Errors are `{"error": {"code", "message", "fields"?}}`; \
                each operation lists the codes it answers with.
                """,
            ],
            "tags": tags + [["name": "Operations", "description": "Health, readiness, metrics and this document."]],
            "paths": paths,
            "components": components,
        ]
    }

    /// Errors the transport answers for any operation, before or around SQL
    /// (APIResponder+Input.swift, APIError+PostgresError.swift).
    static func transportErrors(of endpoint: Endpoint, takesBody: Bool, strictBody: Bool = false) -> [Int: String] {
        var errors: [Int: String] = [
            400:
                "`invalid_text`: a NUL character in the path, query or body; `malformed_request`: HTTP the parser refuses; `too_complex`: input too large or deep for the server; `invalid_parameter`: a query parameter given twice, or named `if_match` / `if_none_match` (conditions are headers) or `client_address` / `user_agent` (the server knows them)",
            422: "`invalid_value`: a value SQL could not take (a number out of range, a malformed date)",
            429:
                "`rate_limited`: over this server's budget per token or per address (docs/security.md), with Retry-After",
            500: "`internal_error`, with `request_id`",
            503: "`database_unavailable`, `request_timeout`, `shutting_down`, `too_many_connections`: retry later",
        ]
        if endpoint.requiresAuth { errors[401] = "`missing_token`, `invalid_token`" }
        if endpoint.method != .GET {
            errors[409] = "`conflict`: a concurrent request changed or removed a row this one refers to"
        }
        if endpoint.requiresAuth && endpoint.method != .GET {
            errors[403] = "`insufficient_scope`: the token is an API key that may only read"
        }
        if !endpoint.parameterNames.isEmpty { errors[404] = "`not_found`: no route matches the path" }
        if takesBody {
            errors[400]! +=
                endpoint.body == .csv
                ? "; `malformed_csv`: a stray or unclosed quote"
                : "; `malformed_json`: the body is not JSON; `body_must_be_object`; `body_too_deep`: nested deeper than 512 levels"
            if strictBody {
                errors[422]! += "; `unknown_field`: a body member the operation does not take, named in `fields`"
            }
            errors[413] = "`body_too_large`: over \(endpoint.maximumBodySize >> 20) MiB"
            errors[415] = "`unsupported_media_type`: the body must be \(mediaType(ofBody: endpoint))"
        }
        return errors
    }

    /// Whether a request schema (or the component it names) takes no member it does not
    /// list: SQL answers such a member 422 `unknown_field` (app.request_members).
    static func isStrict(_ schema: Any, schemas: [String: Any]) -> Bool {
        var schema = schema as? [String: Any] ?? [:]
        if let reference = schema["$ref"] as? String {
            schema = schemas[String(reference.split(separator: "/").last ?? "")] as? [String: Any] ?? [:]
        }
        return schema["additionalProperties"] as? Bool == false
    }

    static func mediaType(ofBody endpoint: Endpoint) -> String {
        endpoint.body == .csv ? "text/csv" : "application/json"
    }

    /// The media type of a successful answer: JSON, or the streamed type without parameters.
    static func mediaType(ofAnswer endpoint: Endpoint) -> String {
        endpoint.streamedContentType.map { String($0.prefix { $0 != ";" }) } ?? "application/json"
    }

    static var errorContent: [String: Any] { ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]] }

    /// The shared error answers (`components.responses`) by status: an operation refers to
    /// them with its own description (the codes it answers with), so clients get one type
    /// per error status.
    static let errorResponseNames: [Int: String] = [
        400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict",
        413: "ContentTooLarge", 415: "UnsupportedMediaType", 422: "UnprocessableContent", 429: "TooManyRequests",
        500: "InternalServerError", 503: "ServiceUnavailable",
    ]

    static var errorResponses: [String: Any] {
        Dictionary(
            uniqueKeysWithValues: errorResponseNames.map { code, name in
                (name, ["description": "An error (HTTP \(code))", "content": errorContent] as [String: Any])
            }
        )
    }

    static func operation(
        _ endpoint: Endpoint,
        _ described: APIContract.Operation?,
        schemas: [String: Any] = [:]
    ) -> [String: Any] {
        let contract = described?.object ?? [:]
        var operation: [String: Any] = ["operationId": endpoint.function, "summary": endpoint.summary]
        if let description = contract["description"] as? String { operation["description"] = description }
        if let tag = contract["tag"] as? String ?? described?.tag { operation["tags"] = [tag] }
        if endpoint.requiresAuth { operation["security"] = [["bearer": [String]()]] }

        // Path parameters from the table (ids are UUIDs unless the contract says otherwise),
        // then the contract's query parameters.
        let declared = contract["parameters"] as? [[String: Any]] ?? []
        var parameters: [[String: Any]] = endpoint.parameterNames.map { name in
            if var parameter = declared.first(where: { $0["in"] as? String == "path" && $0["name"] as? String == name })
            {
                parameter["required"] = true
                return parameter
            }
            return [
                "name": name, "in": "path", "required": true,
                "schema": ["type": "string", "format": "uuid"],
            ]
        }
        parameters += declared.filter { $0["in"] as? String != "path" }
        let statuses = Set((contract["responses"] as? [String: Any] ?? [:]).keys)
        if statuses.contains("304") { parameters.append(conditionHeader("If-None-Match", answer: "304")) }
        if statuses.contains("412") { parameters.append(conditionHeader("If-Match", answer: "412")) }
        if !parameters.isEmpty { operation["parameters"] = parameters }

        var takesBody = false
        var strictBody = false
        if var body = contract["requestBody"] as? [String: Any] {
            takesBody = true
            if let schema = body.removeValue(forKey: "schema") {
                strictBody = isStrict(schema, schemas: schemas)
                var media: [String: Any] = ["schema": schema]
                if let examples = body.removeValue(forKey: "examples") { media["examples"] = examples }
                body["content"] = [mediaType(ofBody: endpoint): media]
            }
            operation["requestBody"] = body
        }

        var responses: [String: Any] = [:]
        for (status, value) in contract["responses"] as? [String: Any] ?? [:] {
            guard var response = value as? [String: Any] else { continue }
            let code = Int(status) ?? 0
            if let schema = response.removeValue(forKey: "schema") {
                var media: [String: Any] = ["schema": schema]
                if let examples = response.removeValue(forKey: "examples") { media["examples"] = examples }
                response["content"] = [code < 400 ? mediaType(ofAnswer: endpoint) : "application/json": media]
            } else if code >= 400, response["content"] == nil {
                if response.keys.allSatisfy({ $0 == "description" }), let name = errorResponseNames[code] {
                    // The shared error answer of the status, with this operation's codes.
                    response["$ref"] = "#/components/responses/" + name
                } else {
                    response["content"] = errorContent
                }
            }
            if let name = response["links"] as? String { response["links"] = described?.links[name] }
            // A GET that can answer 304 tells the version it shows (SQL sets the header).
            if statuses.contains("304"), (200..<400).contains(code), code != 204 {
                response["headers"] = [
                    "ETag": [
                        "description": "The version of what the answer shows, for If-None-Match and If-Match.",
                        "schema": ["type": "string"],
                    ]
                ]
            }
            responses[status] = response
        }
        if responses.isEmpty {
            responses[String(endpoint.status)] = ["description": "Undescribed: sql/contract has no operation for it"]
        }
        for (code, text) in transportErrors(of: endpoint, takesBody: takesBody, strictBody: strictBody) {
            var response =
                responses[String(code)] as? [String: Any]
                ?? ["$ref": "#/components/responses/" + errorResponseNames[code]!]
            response["description"] = [response["description"] as? String, text].compactMap { $0 }.joined(
                separator: "; "
            )
            responses[String(code)] = response
        }
        operation["responses"] = responses
        return operation
    }

    /// A conditional request header of an operation that answers `answer` (304 or 412) by it:
    /// one entity tag, a list of them, or `*` (what SQL accepts; anything else is 400).
    static func conditionHeader(_ name: String, answer: String) -> [String: Any] {
        [
            "name": name, "in": "header", "required": false,
            "description": "An ETag this server gave (\"<version>\"), a list of them, or *; answered \(answer) when "
                + (answer == "304" ? "it names the current version." : "it does not name the current version."),
            "schema": [
                "type": "string", "pattern": #"^(\*|(W/)?"[\x21\x23-\x7e]*"(\s*,\s*(W/)?"[\x21\x23-\x7e]*")*)$"#,
            ],
        ]
    }

    static var operationalPaths: [(String, [String: Any])] {
        [
            (
                "/healthz",
                [
                    "operationId": "healthz", "summary": "The process is up", "tags": ["Operations"],
                    "responses": [
                        "200": [
                            "description": "Up",
                            "content": ["application/json": ["schema": statusSchema("ok")]],
                        ],
                        "503": serverLimitAnswer,
                    ],
                ]
            ),
            (
                "/readyz",
                [
                    "operationId": "readyz", "summary": "The database is reachable and migrations are current",
                    "tags": ["Operations"],
                    "responses": [
                        "200": [
                            "description": "Ready",
                            "content": ["application/json": ["schema": statusSchema("ready")]],
                        ],
                        "503": [
                            "description":
                                "`migrations_pending`, `database_unavailable`, `shutting_down`, `too_many_connections`",
                            "content": errorContent,
                        ],
                    ],
                ]
            ),
            (
                "/metrics",
                [
                    "operationId": "metrics", "summary": "Prometheus metrics", "tags": ["Operations"],
                    "responses": [
                        "200": [
                            "description": "The text exposition format",
                            "content": ["text/plain": ["schema": ["type": "string"]]],
                        ],
                        "503": serverLimitAnswer,
                    ],
                ]
            ),
            (
                "/openapi.json",
                [
                    "operationId": "openapi", "summary": "This document", "tags": ["Operations"],
                    "responses": [
                        "200": [
                            "description": "OpenAPI 3.1",
                            "content": [
                                "application/json": [
                                    "schema": ["type": "object", "required": ["openapi", "paths"]]
                                ]
                            ],
                        ],
                        "503": serverLimitAnswer,
                    ],
                ]
            ),
        ]
    }

    /// What any route may answer when the server stops or has too many connections open.
    static var serverLimitAnswer: [String: Any] {
        ["description": "`shutting_down`, `too_many_connections`: retry later", "content": errorContent]
    }

    static func statusSchema(_ value: String) -> [String: Any] {
        ["type": "object", "required": ["status"], "properties": ["status": ["const": value]]]
    }
}
