import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import LiftbaseHTTP
import Logging
import PQ
import Testing

/// What a test client's closure hands back: it runs once, before the value is read.
final class ClosureResult<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body` against a Liftbase application on the migrated test database: the real
/// endpoint table unless `endpoints` is given, logging to `logger` when one is given, with
/// the configuration changed by `adjust`.
func withTestClient(
    poolSize: Int = 3,
    endpoints: [Endpoint] = LiftbaseCore.endpoints,
    logger: Logger? = nil,
    databaseURL: String? = nil,
    mode: TestingSetup = .router,
    adjust: (inout LiftbaseCore.Configuration) -> Void = { _ in },
    _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    var configuration = try LiftbaseCore.Configuration(environment: [:])
    configuration.databaseURL = try databaseURL ?? TestDatabase.url()
    configuration.sqlDirectory = TestDatabase.sqlDirectory
    configuration.poolSize = poolSize
    // Budgets the suite never reaches; the tests of the budgets set their own.
    configuration.tokenBudget = .init(name: "per_token", quota: 1_000_000, window: .seconds(1))
    configuration.addressBudget = .init(name: "per_address", quota: 1_000_000, window: .seconds(1))
    adjust(&configuration)
    let logger =
        logger
        ?? {
            var quiet = Logger(label: "liftbase-test")
            quiet.logLevel = .warning
            return quiet
        }()
    let application = try LiftbaseServer.makeApplication(
        configuration: configuration,
        endpoints: endpoints,
        logger: logger
    )
    try await application.test(mode) { client in try await body(client) }
}

/// Registers a new account and returns its token.
func registerUser(_ client: any TestClientProtocol, _ label: String = "user") async throws -> String {
    let answer = try await client.send(
        .post,
        "/auth/register",
        ["email": TestDatabase.uniqueEmail(label), "password": "a good password"]
    )
    return try #require(answer["token"] as? String)
}

/// A response with its JSON body; `answer["user", "email"]` walks nested objects.
struct APIAnswer {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: [String: Any]
    /// The body as sent.
    let text: String

    /// The answer to `method uri`, checked against /openapi.json (`Conformance`): a test
    /// that receives an answer the document does not promise fails.
    init(
        _ response: TestResponse,
        method: HTTPRequest.Method,
        uri: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        status = response.status
        headers = response.headers
        text = String(buffer: response.body)
        body = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        Conformance.check(
            method: method,
            uri: uri,
            status: Int(response.status.code),
            headers: response.headers,
            body: Data(buffer: response.body),
            sourceLocation: sourceLocation
        )
    }

    subscript(path: String...) -> Any? {
        var value: Any? = body
        for key in path { value = (value as? [String: Any])?[key] }
        return value
    }

    var errorCode: String? { self["error", "code"] as? String }
}

extension TestClientProtocol {
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        _ body: [String: Any]? = nil,
        token: String? = nil,
        headers extra: HTTPFields = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> APIAnswer {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        let buffer = try body.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) }
        let uri = apiBasePath + path
        return APIAnswer(
            try await execute(uri: uri, method: method, headers: headers, body: buffer),
            method: method,
            uri: uri,
            sourceLocation: sourceLocation
        )
    }
}
