import Foundation
import HTTPTypes
import Hummingbird
import LiftbaseCore
import Logging
import NIOPosix
import PQ

/// A function's answer that breaks the statement's contract: a defect in SQL, answered 500.
enum EndpointAnswerError: Error, CustomStringConvertible {
    case noRow(function: String)
    case malformedHeaders(function: String, reason: String)

    var description: String {
        switch self {
        case .noRow(let function): return "api.\(function) answered no row"
        case .malformedHeaders(let function, let reason):
            return "api.\(function) set malformed liftbase.response_headers: \(reason)"
        }
    }
}

/// Answers every request: the API routes from the endpoint table, each one SQL statement
/// on the pool, and the operational routes. Owns request ids, the per-request log line,
/// metrics, and the error shape. A class: Hummingbird hands the responder on by value for
/// every request, and a struct of these references costs a retain and a release of each.
final class APIResponder: HTTPResponder {
    typealias Context = APIRequestContext

    /// Tries for one request when the transaction hits a serialization failure or deadlock.
    static let transactionAttempts = 3
    /// Tries for one read when its connection is lost under it.
    static let lostConnectionAttempts = 3

    let pool: ConnectionPool
    let routes: RouteTable
    let migrator: Migrator
    let metrics: HTTPMetrics
    let gate: RequestGate
    let connections: OpenConnections
    let openAPI: String
    let clientAddresses: ClientAddressResolver
    let tokenBudget: RequestBudget?
    let addressBudget: RequestBudget?
    /// Checks the ID tokens of sign-in with a provider; nil when no provider is configured.
    let idTokens: IDTokenVerifier?
    let logger: Logger

    init(
        pool: ConnectionPool,
        routes: RouteTable,
        migrator: Migrator,
        metrics: HTTPMetrics,
        gate: RequestGate,
        connections: OpenConnections,
        openAPI: String,
        clientAddresses: ClientAddressResolver = ClientAddressResolver(trustedProxies: []),
        tokenBudget: RequestBudget? = nil,
        addressBudget: RequestBudget? = nil,
        idTokens: IDTokenVerifier? = nil,
        logger: Logger
    ) {
        self.pool = pool
        self.routes = routes
        self.migrator = migrator
        self.metrics = metrics
        self.gate = gate
        self.connections = connections
        self.openAPI = openAPI
        self.clientAddresses = clientAddresses
        self.tokenBudget = tokenBudget
        self.addressBudget = addressBudget
        self.idTokens = idTokens
        self.logger = logger
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        // The id goes on every line logged for the request, on its answer, and in the body
        // of a 5xx answer.
        let requestID = Self.requestID(from: request)
        var logger = self.logger
        logger[metadataKey: "request_id"] = .string(requestID)
        let path = request.uri.path
        var route = "unmatched"
        var response: Response
        do {
            guard gate.enter() else { throw APIError.shuttingDown }
            defer { gate.leave() }
            response = try await dispatch(request, context: context, path: path, route: &route, logger: logger)
        } catch let error as APIError {
            // Past the drain timeout, statements are cancelled and queued work failed.
            let shutdown = gate.hasGivenUp && error.status == .serviceUnavailable
            response = (shutdown ? APIError.shuttingDown : error).response(requestID: requestID)
        } catch {
            logger.error("unexpected error: \(error)")
            response = APIError.internal.response(requestID: requestID)
        }
        response.headers[.requestID] = requestID
        let duration = ContinuousClock.now - started
        let method = request.method.rawValue
        metrics.record(method: method, route: route, status: response.status.code, duration: duration)
        logger.info(
            "\(method) \(path) \(response.status.code)",
            metadata: [
                "route": .string(route), "status": .stringConvertible(response.status.code),
                "duration_ms": .string(String(format: "%.2f", duration.milliseconds)),
            ]
        )
        return response
    }

    /// Answers the request, naming its route (for metrics and the log) in `route` as soon as
    /// it is known; throws `APIError` for error answers.
    private func dispatch(
        _ request: Request,
        context: Context,
        path: String,
        route: inout String,
        logger: Logger
    ) async throws -> Response {
        if !path.hasPrefix(apiBasePath + "/") {
            guard let operational = try await operational(request, path: path, logger: logger) else {
                throw APIError.notFound
            }
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
            return try await call(endpoint, parameters: parameters, request: request, context: context, logger: logger)
        }
    }

    private func call(
        _ endpoint: Endpoint,
        parameters: [String: String],
        request: Request,
        context: Context,
        logger: Logger
    ) async throws -> Response {
        let clientAddress = clientAddresses.clientAddress(
            peer: context.remoteAddress?.ipAddress,
            forwardedFor: request.headers[values: .xForwardedFor]
        )
        func arguments(idTokenClaims: String? = nil) throws -> String {
            try Self.argumentsJSON(
                parameters: parameters,
                query: request.uri.queryParameters,
                headers: request.headers,
                clientAddress: clientAddress,
                idTokenClaims: idTokenClaims,
                imageContentType: endpoint.body == .image
            )
        }
        var argumentsJSON = try arguments()
        let token = Self.bearerToken(request)
        if endpoint.requiresAuth && token == nil { throw APIError.missingToken }
        let budgetHeaders = try spendBudgets(token: token, address: clientAddress)
        if endpoint.body == .image || endpoint.binaryAnswer != nil {
            var response = try await exchangeBytes(
                endpoint,
                token: token,
                arguments: argumentsJSON,
                request: request,
                logger: logger
            )
            response.headers.append(contentsOf: budgetHeaders)
            return response
        }
        let body = try await Self.bodyText(request, for: endpoint)
        if endpoint.verifiesIDToken {
            // Checked once the body is read: the token is in it.
            argumentsJSON = try arguments(
                idTokenClaims: try await verifiedIDToken(in: body, provider: parameters["provider"] ?? "")
            )
        }
        if let contentType = endpoint.streamedContentType {
            var response = try await stream(
                endpoint,
                contentType: contentType,
                parameters: [token, body, argumentsJSON],
                retryingLostConnection: Self.isRead(request),
                logger: logger
            )
            response.headers.append(contentsOf: budgetHeaders)
            return response
        }

        let rows = try await statement(
            endpoint.statement,
            [token, body, argumentsJSON],
            isRead: Self.isRead(request),
            logger: logger
        ).rows
        // A function answers one row; none at all is a defect of the function, answered
        // 500 like any other, never a crash of the process.
        guard let answer = rows.first else {
            throw Self.apiError(for: EndpointAnswerError.noRow(function: endpoint.function), logger: logger)
        }
        let status =
            answer[1].flatMap { Int($0) }.map { HTTPResponse.Status(code: $0) }
            ?? HTTPResponse.Status(code: endpoint.status)
        var headers = try Self.responseHeaders(answer[2], function: endpoint.function)
        // The sensitive routes' limits are SQL's (their RateLimit fields); these are the server's.
        headers.append(contentsOf: budgetHeaders)
        guard let json = answer[0], status != .noContent else {
            return Response(status: status, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    /// Spends the request from this server's budgets (RequestBudget, docs/security.md): per
    /// bearer token and per client address. Answers their RateLimit headers, or throws the
    /// 429 `rate_limited` with them and Retry-After.
    func spendBudgets(token: String?, address: String?) throws -> HTTPFields {
        var spent: [(policy: RequestBudget.Policy, answer: RequestBudget.Answer)] = []
        // The token's hash, not the token: the table holds no credential.
        if let budget = tokenBudget, let token { spent.append((budget.policy, budget.spend("t\(token.hashValue)"))) }
        if let budget = addressBudget, let address {
            spent.append((budget.policy, budget.spend(ClientAddressResolver.limitKey(address))))
        }
        guard !spent.isEmpty else { return [:] }
        var headers: HTTPFields = [:]
        headers[.rateLimitPolicy] = spent.map(\.policy.description).joined(separator: ", ")
        headers[.rateLimit] = spent.map { "\"\($0.policy.name)\";r=\($0.answer.remaining);t=\($0.answer.reset)" }
            .joined(separator: ", ")
        let refused = spent.filter { !$0.answer.allowed }
        guard refused.isEmpty else {
            headers[.retryAfter] = String(refused.map(\.answer.retryAfter).max() ?? 1)
            throw APIError(
                status: .tooManyRequests,
                code: "rate_limited",
                message: "Too many requests. Try again later.",
                headers: headers
            )
        }
        return headers
    }

    /// The headers a function set in `liftbase.response_headers`: a JSON object of names to
    /// strings. Anything else is a defect of the function: an error, never silently dropped.
    static func responseHeaders(_ text: String?, function: String) throws -> HTTPFields {
        var headers: HTTPFields = [:]
        guard let text, !text.isEmpty else { return headers }
        // Foundation's parser reads what the short one does not (2.8 % of GET /me's CPU when
        // it read every answer's ETag).
        let pairs: [(name: String, value: String?)]
        if let printed = JSONText.stringObject(text) {
            pairs = printed.map { ($0.name, $0.value) }
        } else if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] {
            pairs = object.map { ($0.key, $0.value as? String) }
        } else {
            throw EndpointAnswerError.malformedHeaders(function: function, reason: "not a JSON object")
        }
        for (name, value) in pairs.sorted(by: { $0.name < $1.name }) {
            guard let field = HTTPField.Name(name), let value else {
                throw EndpointAnswerError.malformedHeaders(
                    function: function,
                    reason: "header \(name) is not a valid name with a string value"
                )
            }
            headers[field] = value
        }
        return headers
    }

    /// The verified claims of the body's `id_token` (IDTokenVerifier), or nil when the body
    /// has none as a string: SQL then answers the body's problem, as it does for any route.
    func verifiedIDToken(in body: String?, provider: String) async throws -> String? {
        guard let body, let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let idToken = object["id_token"] as? String
        else { return nil }
        guard let idTokens else {
            throw APIError(
                status: .notFound,
                code: "provider_not_found",
                message: "No provider \(provider) is configured."
            )
        }
        return try await idTokens.claimsJSON(provider: provider, idToken: idToken)
    }

    /// Runs `work` on a pooled connection; retries serialization failures and deadlocks,
    /// and, for a read, a lost connection; turns database failures into API errors.
    func database<T: Sendable>(
        retryingLostConnection: Bool = false,
        logger: Logger,
        _ work: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await retrying(lostConnection: retryingLostConnection, logger: logger) { fresh in
            try await pool.withConnection(freshConnection: fresh, work)
        }
    }

    /// An endpoint's statement, run as `database` runs work. The pool may send a read in
    /// one pipeline with other reads, in a read-only transaction, and a write at the end of
    /// such a pipeline (`ConnectionPool.queryPrepared`); a read is run again when its
    /// connection is lost.
    func statement(
        _ sql: String,
        _ parameters: [String?],
        isRead: Bool,
        logger: Logger
    ) async throws -> QueryResult {
        try await retrying(lostConnection: isRead, logger: logger) { fresh in
            try await pool.queryPrepared(sql, parameters, readOnly: isRead, freshConnection: fresh)
        }
    }

    /// Runs `attempt` again after a serialization failure or deadlock, and for a read after
    /// a lost connection (on a fresh one); turns database failures into API errors.
    private func retrying<T>(
        lostConnection: Bool,
        logger: Logger,
        _ attempt: (_ freshConnection: Bool) async throws -> T
    ) async throws -> T {
        do {
            return try await Self.retryingTransactionFailures {
                try await Self.retryingLostConnection(lostConnection, logger: logger, attempt)
            }
        } catch {
            throw Self.apiError(for: error, logger: logger)
        }
    }

    /// GET and HEAD: their SQL writes nothing a second run could double.
    static func isRead(_ request: Request) -> Bool {
        request.method == .get || request.method == .head
    }

    /// A read whose connection broke before it answered (a terminated backend, a restart,
    /// a failover) runs again, on a new connection, so the client never sees the loss.
    /// Three tries in all: on a loaded server a retry can outlast the next termination of a
    /// repeated sweep or a failover's second step, and a read is safe to run any number of
    /// times. A write is never run twice here: it may have committed before the connection
    /// broke, and a client's retry with its `client_id` is the safe way to repeat it.
    static func retryingLostConnection<T>(
        _ enabled: Bool,
        attempts: Int = lostConnectionAttempts,
        logger: Logger,
        _ attempt: (_ freshConnection: Bool) async throws -> T
    ) async throws -> T {
        var tried = 1
        while true {
            do {
                return try await attempt(tried > 1)
            } catch let error as PostgresError where enabled && error.isLostConnection && tried < attempts {
                tried += 1
                logger.warning(
                    "connection lost under a read; running it again on a new one (try \(tried) of \(attempts)): \(error.message)"
                )
            }
        }
    }

    /// The API error a database or pool failure is answered with, logged when it is ours.
    /// The database's detail and hint may quote row values: debug level only.
    static func apiError(for error: any Error, logger: Logger) -> any Error {
        switch error {
        case let error as PostgresError:
            let mapped = APIError(error)
            if mapped.status.kind == .serverError {
                logger.error("database error: \(error)")
                logger.debug(
                    "database error detail",
                    metadata: [
                        "detail": .string(error.detail ?? ""), "hint": .string(error.hint ?? ""),
                    ]
                )
            }
            return mapped
        case let error as ConnectionPool.PoolError:
            logger.error("\(error)")
            return APIError.unavailable
        case let error as EndpointAnswerError:
            logger.error("\(error)")
            return APIError.internal
        default:
            return error
        }
    }

    /// Runs `transaction` again when it fails with a serialization failure or deadlock, up
    /// to `attempts` times in all; the last failure is rethrown (and answered 503).
    static func retryingTransactionFailures<T>(
        attempts: Int = transactionAttempts,
        _ transaction: () async throws -> T
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

    private func operational(_ request: Request, path: String, logger: Logger) async throws -> Response? {
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
            return try await readiness(logger: logger)
        case "/metrics":
            // The outbox's state comes from the database; without it the rest is still served.
            do {
                metrics.record(outbox: try await pool.queryPrepared(HTTPMetrics.outboxQuery, [], readOnly: true).rows)
            } catch {
                logger.warning("/metrics: the outbox could not be read: \(error)")
            }
            let text = metrics.emit(pool: pool.statistics, openConnections: connections.current)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        case "/openapi.json":
            return Self.json(openAPI)
        default:
            return nil
        }
    }

    /// Ready when the database answers and every migration and function file is applied.
    private func readiness(logger: Logger) async throws -> Response {
        let migrator = self.migrator
        let pending = try await database(logger: logger) { connection in
            migrator.pending(applied: try migrator.applied(on: connection)).map(\.name)
        }
        guard pending.isEmpty else {
            throw APIError(
                status: .serviceUnavailable,
                code: "migrations_pending",
                message: "Migrations are pending: \(pending.joined(separator: ", "))."
            )
        }
        return Self.json(#"{"status":"ready"}"#)
    }

    // MARK: Helpers

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    static func bearerToken(_ request: Request) -> String? {
        request.headers[.authorization].flatMap(bearerToken(fromAuthorization:))
    }

    /// The token of an `Authorization: Bearer <token>` value (the scheme in any case, the
    /// token without the blanks around it), or nil. Read scalar by scalar: every request
    /// with a token comes here, and Foundation's case mapping and trimming took 3% of the
    /// server's CPU under GET /me load (docs/benchmarks.md). The token is copied out of the
    /// header's scalars as one slice: appending them one by one cost 3 µs a request.
    static func bearerToken(fromAuthorization header: String) -> String? {
        let scalars = header.unicodeScalars
        guard let space = scalars.firstIndex(of: " "),
            // Setting the ASCII case bit maps only "B" and "b" to "b", and so on.
            scalars[..<space].elementsEqual("bearer".unicodeScalars, by: { $0.value | 0x20 == $1.value })
        else { return nil }
        let isBlank = { (scalar: Unicode.Scalar) in
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let rest = scalars[scalars.index(after: space)...]
        guard let first = rest.firstIndex(where: { !isBlank($0) }), let last = rest.lastIndex(where: { !isBlank($0) })
        else { return nil }
        return String(rest[first...last])
    }

    /// The client's X-Request-Id when it is a sane token, else a new one.
    static func requestID(from request: Request) -> String {
        if let given = request.headers[.requestID], (1...128).contains(given.utf8.count),
            given.utf8.allSatisfy({
                $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
            })
        {
            return given
        }
        let hex = String(requestIDs.next(), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static let requestIDs = RequestIDs()
}

/// New request ids: 64 random bits each, from the system's random source 512 at a time.
/// One system call a request cost 1.4 % of the server's CPU for GET /healthz.
final class RequestIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var random = [UInt64](repeating: 0, count: 512)
    private var used = 512

    func next() -> UInt64 {
        lock.withLock {
            if used == random.count {
                random.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                used = 0
            }
            defer { used += 1 }
            return random[used]
        }
    }
}
