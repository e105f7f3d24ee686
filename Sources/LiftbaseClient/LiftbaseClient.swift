import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client of the Liftbase HTTP API. `Client` and the `Operations` and `Components`
/// types are generated (Generated/, Scripts/generate-client) from the OpenAPI document that
/// `GET /openapi.json` serves; this file adds what every caller needs: the bearer token, and
/// timestamps as the server writes them.
extension Client {
    /// A client of the server at `serverURL` (its root, e.g. `http://127.0.0.1:8080`: the
    /// operations' paths start with `/api/v1`), sending `token` as the bearer token when given.
    public static func liftbase(
        serverURL: URL,
        token: String? = nil,
        session: URLSession = .shared
    ) -> Client {
        Client(
            serverURL: serverURL,
            configuration: Configuration(dateTranscoder: LiftbaseDateTranscoder()),
            transport: URLSessionTransport(configuration: .init(session: session)),
            middlewares: token.map { [BearerToken($0)] } ?? []
        )
    }
}

/// Sends `Authorization: Bearer <token>` with every request.
public struct BearerToken: ClientMiddleware {
    let token: String

    public init(_ token: String) { self.token = token }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

/// RFC 3339 timestamps as PostgreSQL writes them: with fractional seconds (microseconds)
/// unless they are zero, then without. Dates are sent with fractional seconds.
public struct LiftbaseDateTranscoder: DateTranscoder {
    private let fractional = ISO8601DateTranscoder(options: [.withInternetDateTime, .withFractionalSeconds])
    private let whole = ISO8601DateTranscoder(options: [.withInternetDateTime])

    public init() {}

    public func encode(_ date: Date) throws -> String { try fractional.encode(date) }

    public func decode(_ string: String) throws -> Date {
        do { return try fractional.decode(string) } catch { return try whole.decode(string) }
    }
}
