import Foundation
import LiftbaseCore

/// OpenAPI 3.1 for every route of the endpoint table and the operational routes.
enum OpenAPIDocument {
    static func json(for endpoints: [Endpoint]) -> String {
        var paths: [String: [String: Any]] = [:]
        let errorResponse: [String: Any] = [
            "description": "Error",
            "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]],
        ]
        for endpoint in endpoints {
            var operation: [String: Any] = [
                "operationId": endpoint.function,
                "summary": endpoint.summary,
                "responses": [
                    String(endpoint.status): endpoint.status == 204 || endpoint.status == 202
                        ? ["description": "Done"]
                        : ["description": "OK", "content": Self.content(of: endpoint)],
                    "default": errorResponse,
                ],
            ]
            if endpoint.requiresAuth { operation["security"] = [["bearer": [String]()]] }
            if !endpoint.parameterNames.isEmpty {
                operation["parameters"] = endpoint.parameterNames.map {
                    ["name": $0, "in": "path", "required": true, "schema": ["type": "string"]]
                }
            }
            if [.POST, .PUT, .PATCH].contains(endpoint.method) || endpoint.function.hasSuffix("_delete") {
                operation["requestBody"] =
                    endpoint.body == .csv
                    ? ["content": ["text/csv": ["schema": ["type": "string"]]]]
                    : ["content": ["application/json": ["schema": ["type": "object"]]]]
            }
            paths[apiBasePath + endpoint.path, default: [:]][endpoint.method.rawValue.lowercased()] = operation
        }
        for (path, summary) in [
            ("/healthz", "The process is up"), ("/readyz", "The database is reachable and migrations are current"),
            ("/metrics", "Prometheus metrics"), ("/openapi.json", "This document"),
        ] {
            paths[path] = [
                "get": [
                    "operationId": String(path.dropFirst()), "summary": summary,
                    "responses": ["200": ["description": "OK"]],
                ]
            ]
        }
        let document: [String: Any] = [
            "openapi": "3.1.0",
            "info": ["title": "Liftbase API", "version": "1"],
            "paths": paths,
            "components": [
                "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]],
                "schemas": [
                    "Error": [
                        "type": "object",
                        "required": ["error"],
                        "properties": [
                            "error": [
                                "type": "object",
                                "required": ["code", "message"],
                                "properties": [
                                    "code": ["type": "string"], "message": ["type": "string"],
                                    "fields": ["type": "object", "additionalProperties": ["type": "string"]],
                                    "request_id": ["type": "string"],
                                ],
                            ]
                        ],
                    ]
                ],
            ],
        ]
        let data = try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// What a successful answer holds: a JSON object, or the streamed type (a CSV is text).
    static func content(of endpoint: Endpoint) -> [String: Any] {
        guard let type = endpoint.streamedContentType else {
            return ["application/json": ["schema": ["type": "object"]]]
        }
        let mediaType = String(type.prefix { $0 != ";" })
        return [mediaType: ["schema": ["type": mediaType == "application/json" ? "object" : "string"]]]
    }
}
