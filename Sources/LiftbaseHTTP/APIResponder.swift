import Foundation
import HTTPTypes
import Hummingbird
import LiftbaseCore
import Logging
import NIOPosix
import PQ

/// Answers every request: the API routes from the endpoint table, each one SQL statement
/// on the pool, and the operational routes. Owns request ids, the per-request log line,
/// metrics, and the error shape.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    /// Tries for one request when the transaction hits a serialization failure or deadlock.
    static let transactionAttempts = 3

    let pool: ConnectionPool
    let routes: RouteTable
    let migrator: Migrator
    let metrics: HTTPMetrics
    let openAPI: String
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let requestID = Self.requestID(from: request)
        let path = request.uri.path
        var route = "unmatched"
        var response: Response
        do {
            response = try await dispatch(request, path: path, route: &route)
        } catch let error as APIError {
            response = Self.errorResponse(error, requestID: requestID)
        } catch {
            logger.error("unexpected error: \(error)", metadata: ["request_id": .string(requestID)])
            response = Self.errorResponse(.internalError, requestID: requestID)
        }
        response.headers[.init("X-Request-Id")!] = requestID
        let duration = ContinuousClock.now - started
        let method = request.method.rawValue
        metrics.record(method: method, route: route, status: response.status.code, duration: duration)
        logger.info("\(method) \(path) \(response.status.code)", metadata: [
            "request_id": .string(requestID), "route": .string(route),
            "status": .stringConvertible(response.status.code),
            "duration_ms": .string(String(format: "%.2f", duration.milliseconds)),
        ])
        return response
    }

    /// Answers the request, naming its route (for metrics and the log) in `route` as soon as
    /// it is known; throws `APIError` for error answers.
    private func dispatch(_ request: Request, path: String, route: inout String) async throws -> Response {
        if !path.hasPrefix(apiBasePath + "/") {
            guard let operational = try await operational(request, path: path) else { throw APIError.notFound }
            route = path
            return operational
        }
        let apiPath = String(path.dropFirst(apiBasePath.count))
        switch routes.match(method: request.method.rawValue, path: apiPath) {
        case .notFound:
            throw APIError.notFound
        case .methodNotAllowed(let allowed):
            throw APIError.methodNotAllowed(allowed.map(\.rawValue))
        case .found(let endpoint, let parameters):
            route = endpoint.path
            return try await call(endpoint, parameters: parameters, request: request)
        }
    }

    private func call(_ endpoint: Endpoint, parameters: [String: String], request: Request) async throws -> Response {
        let token = Self.bearerToken(request)
        if endpoint.requiresAuth && token == nil { throw APIError.missingToken }
        let body = try await Self.bodyText(request, for: endpoint)
        var arguments = parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        for (name, value) in request.uri.queryParameters where parameters[String(name)] == nil {
            arguments.append((String(name), String(value)))
        }
        let argumentsJSON = JSONText.object(arguments)
        if let contentType = endpoint.streamedContentType {
            return try await stream(endpoint, contentType: contentType, parameters: [token, body, argumentsJSON])
        }

        let answer = try await database { connection in
            let row = try connection.queryPrepared(endpoint.statement, [token, body, argumentsJSON]).rows[0]
            return (row[0], row[1], row[2])
        }
        let status = answer.1.flatMap { Int($0) } ?? endpoint.status
        var headers: HTTPFields = [:]
        if let extra = answer.2, !extra.isEmpty,
           let object = try? JSONSerialization.jsonObject(with: Data(extra.utf8)) as? [String: String] {
            for (name, value) in object { if let field = HTTPField.Name(name) { headers[field] = value } }
        }
        guard let json = answer.0, status != 204 else {
            return Response(status: .init(code: status), headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    /// Runs `work` on a pooled connection; retries serialization failures and deadlocks,
    /// and turns database failures into API errors.
    private func database<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        do {
            return try await Self.retryingTransactionFailures { try await pool.withConnection(work) }
        } catch {
            throw apiError(for: error)
        }
    }

    /// The API error a database or pool failure is answered with (logged when it is ours).
    func apiError(for error: any Error) -> any Error {
        switch error {
        case let error as PostgresError:
            let mapped = APIError(error)
            if mapped.status >= 500 { logger.error("database error: \(error)") }
            return mapped
        case let error as ConnectionPool.PoolError:
            logger.error("\(error)")
            return APIError.unavailable
        default:
            return error
        }
    }

    /// Runs `transaction` again when it fails with a serialization failure or deadlock, up
    /// to `attempts` times in all; the last failure is rethrown (and answered 503).
    static func retryingTransactionFailures<T>(
        attempts: Int = transactionAttempts, _ transaction: () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await transaction()
            } catch let error as PostgresError where error.isRetryableTransactionFailure && attempt < attempts {
                attempt += 1
            }
        }
    }

    // MARK: Operational routes

    private func operational(_ request: Request, path: String) async throws -> Response? {
        guard request.method == .get || request.method == .head else {
            if ["/healthz", "/readyz", "/metrics", "/openapi.json"].contains(path) {
                throw APIError.methodNotAllowed(["GET"])
            }
            return nil
        }
        switch path {
        case "/healthz":
            return Self.json(#"{"status":"ok"}"#)
        case "/readyz":
            return try await readiness()
        case "/metrics":
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: metrics.emit(pool: pool.statistics))))
        case "/openapi.json":
            return Self.json(openAPI)
        default:
            return nil
        }
    }

    /// Ready when the database answers and every migration and function file is applied.
    private func readiness() async throws -> Response {
        let migrator = self.migrator
        let pending = try await database { connection in
            migrator.pending(applied: try migrator.applied(on: connection)).map(\.name)
        }
        guard pending.isEmpty else {
            throw APIError(status: 503, code: "migrations_pending",
                           message: "Migrations are pending: \(pending.joined(separator: ", ")).")
        }
        return Self.json(#"{"status":"ready"}"#)
    }

    // MARK: Helpers

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func errorResponse(_ error: APIError, requestID: String) -> Response {
        var response = json(error.body(requestID: requestID), status: .init(code: error.status))
        for (name, value) in error.headers { if let field = HTTPField.Name(name) { response.headers[field] = value } }
        return response
    }

    static func bearerToken(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// The body as text for `app.request_body` (which rejects malformed JSON), or nil. A CSV
    /// route's body becomes the JSON document of `CSVImportDocument`, hashed as it was sent.
    static func bodyText(_ request: Request, for endpoint: Endpoint) async throws -> String? {
        let limit = endpoint.maximumBodySize
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge(limit: limit)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.tooLarge(limit: limit)
        }
        let bytes = buffer.readableBytesView
        // libpq sends parameters as C strings: a NUL would cut the text short.
        if bytes.contains(0) { throw endpoint.body == .csv ? APIError.malformedCSV("it contains a NUL byte") : APIError.malformedBody }
        switch endpoint.body {
        case .json:
            guard buffer.readableBytes > 0 else { return nil }
            guard buffer.readableBytes > Endpoint.defaultMaximumBodySize else { return String(decoding: bytes, as: UTF8.self) }
            // A document of many MiB (a Liftbase export being imported) is decoded on NIO's
            // blocking pool, like CSV, not on a cooperative thread.
            let body = Array(bytes)
            return try await NIOThreadPool.singleton.runIfActive { String(decoding: body, as: UTF8.self) }
        case .csv:
            // Up to 20 MiB of CSV takes a while to parse and hash: on NIO's blocking pool, so
            // no cooperative thread (and no event loop) is held for it.
            let body = Array(bytes)
            do {
                return try await NIOThreadPool.singleton.runIfActive {
                    try CSVImportDocument.json(fromCSV: String(decoding: body, as: UTF8.self), fileSHA256: SHA256.hex(body))
                }
            } catch let error as CSVImportDocument.Malformed {
                throw APIError.malformedCSV(error.reason)
            }
        }
    }

    /// The client's X-Request-Id when it is a sane token, else a new random one.
    static func requestID(from request: Request) -> String {
        if let given = request.headers[.init("X-Request-Id")!], (1...128).contains(given.utf8.count),
           given.utf8.allSatisfy({ $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }) {
            return given
        }
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
