import Foundation
import HTTPTypes
import LiftbaseCore
import LiftbaseHTTP
import Testing

/// Every answer an HTTP test receives through the test support (`send`, `importCSV`,
/// `importBody`, ...) is checked against the OpenAPI document the server serves: the status
/// must be one the operation documents, the media type the one documented for it, and a
/// JSON body must conform to the schema of that status (listing every member it has). A
/// mismatch is an issue of the test that received the answer.
enum Conformance {
    /// The document `GET /openapi.json` answers with, from the repository's sql/contract.
    nonisolated(unsafe) static let document: [String: Any] = {
        let contract = try! APIContract(directory: APIContract.directory(inSQLDirectory: TestDatabase.sqlDirectory))
        return OpenAPIDocument.document(for: endpoints, contract: contract)
    }()

    static let routes = try! RouteTable(endpoints)

    static var validator: JSONSchemaValidator {
        var validator = JSONSchemaValidator(document: document)
        validator.undeclaredPropertiesAreProblems = true
        return validator
    }

    /// The operation object of an endpoint.
    static func operation(_ endpoint: Endpoint) -> [String: Any]? {
        let paths = document["paths"] as? [String: Any]
        return (paths?[apiBasePath + endpoint.path] as? [String: Any])?[endpoint.method.rawValue.lowercased()]
            as? [String: Any]
    }

    /// A response object, or the shared one its `$ref` names (`#/components/responses/...`).
    static func resolved(_ response: [String: Any]) -> [String: Any] {
        guard let reference = response["$ref"] as? String else { return response }
        return validator.resolve(reference) as? [String: Any] ?? [:]
    }

    /// What is wrong with an answer to `method uri`; empty when it conforms, or when no
    /// operation of the table matches (unknown routes and methods are the router's tests).
    static func problems(
        method: HTTPRequest.Method,
        uri: String,
        status: Int,
        contentType: String?,
        body: Data
    ) -> [String] {
        let path = String(uri.prefix { $0 != "?" })
        guard path.hasPrefix(apiBasePath + "/"),
            case .found(let endpoint, _) = routes.match(
                method: method.rawValue,
                path: String(path.dropFirst(apiBasePath.count))
            ),
            let operation = operation(endpoint)
        else { return [] }
        let name = "\(method.rawValue) \(endpoint.path) → \(status)"
        guard let listed = (operation["responses"] as? [String: Any])?[String(status)] as? [String: Any] else {
            return ["\(name): the document lists no such status for the operation"]
        }
        let response = resolved(listed)
        guard let content = response["content"] as? [String: Any] else {
            return body.isEmpty ? [] : ["\(name): the document promises no body, the answer has \(body.count) bytes"]
        }
        let mediaType = (contentType ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let mediaType, let media = content[mediaType] as? [String: Any] else {
            return ["\(name): media type \(contentType ?? "none") is not one of \(content.keys.sorted())"]
        }
        guard mediaType == "application/json", let schema = media["schema"] else { return [] }
        guard let value = try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed) else {
            return ["\(name): the body is not JSON"]
        }
        return validator.problems(value, schema).map { "\(name): \($0)" }
    }

    /// Records every problem of an answer as an issue of the running test.
    static func check(
        method: HTTPRequest.Method,
        uri: String,
        status: Int,
        headers: HTTPFields,
        body: Data,
        sourceLocation: SourceLocation
    ) {
        for problem in problems(
            method: method,
            uri: uri,
            status: status,
            contentType: headers[.contentType],
            body: body
        ) {
            Issue.record("answer does not conform to /openapi.json: \(problem)", sourceLocation: sourceLocation)
        }
    }
}
