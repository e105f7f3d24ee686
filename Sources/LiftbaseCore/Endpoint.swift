/// One row of the endpoint table: the whole description of an API route. The router, the
/// OpenAPI document and the tests all read the table; nothing else lists routes.
public struct Endpoint: Sendable, Equatable {
    public enum Method: String, Sendable, CaseIterable { case GET, POST, PUT, PATCH, DELETE }
    /// What the request body is: JSON passed to SQL as it is, CSV that the HTTP layer
    /// turns into one JSON document (header and rows with their line numbers) for SQL to map,
    /// or an image whose bytes SQL takes as a `bytea` (what they may be is SQL's to judge;
    /// their Content-Type reaches it as the argument `content_type`).
    public enum Body: Sendable, Equatable { case json, csv, image }

    /// What a successful answer is when it is not one JSON value: the bytes of a `bytea`
    /// (its content type among the headers SQL sets), or a tar archive of the files a
    /// function answers as rows (file_name, modified_at, content).
    public enum BinaryAnswer: Sendable, Equatable { case bytes, tarArchive }

    /// The largest image an upload may send; SQL's limit (liftbase.photo_max_bytes) is the
    /// rule and is lower, this only bounds what the server reads into memory.
    public static let maximumImageBodySize = 32 << 20

    /// The body size every route accepts unless its row says otherwise.
    public static let defaultMaximumBodySize = 1 << 20

    public let method: Method
    /// Path under the API base, with `{name}` for a path parameter: `/plans/{id}`.
    public let path: String
    /// The SQL function in schema `api` that answers it.
    public let function: String
    /// Status of a successful answer (SQL may override it per request).
    public let status: Int
    /// Whether a bearer token is required.
    public let requiresAuth: Bool
    public let summary: String
    public let body: Body
    /// Largest request body accepted, in bytes (413 above).
    public let maximumBodySize: Int
    /// The content type of a streamed answer, or nil for the usual single JSON value. A
    /// streamed endpoint's function returns `setof text` whose rows, in order, are the body:
    /// it is read row by row and written as it comes (exports of years of history).
    public let streamedContentType: String?
    /// Whether the body's `id_token` is an OpenID Connect ID token that the HTTP layer checks
    /// against the provider named by the path's `{provider}` before the statement runs, and
    /// hands SQL as the verified claims `oidc_claims` (sign-in with a provider).
    public let verifiesIDToken: Bool
    /// The answer's bytes when it is not JSON (a photo, an archive of them), or nil.
    public let binaryAnswer: BinaryAnswer?

    public init(
        _ method: Method,
        _ path: String,
        function: String,
        status: Int = 200,
        auth: Bool = true,
        body: Body = .json,
        maximumBodySize: Int = defaultMaximumBodySize,
        streamed streamedContentType: String? = nil,
        verifiesIDToken: Bool = false,
        binaryAnswer: BinaryAnswer? = nil,
        summary: String
    ) {
        self.method = method
        self.path = path
        self.function = function
        self.status = status
        self.requiresAuth = auth
        self.body = body
        self.maximumBodySize = maximumBodySize
        self.streamedContentType = streamedContentType
        self.verifiesIDToken = verifiesIDToken
        self.binaryAnswer = binaryAnswer
        self.summary = summary
    }

    public var pathSegments: [Substring] { path.split(separator: "/") }

    public var parameterNames: [String] {
        pathSegments.filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
    }

    /// The one SQL statement a request to this endpoint runs: the function's JSON answer as
    /// text, and the status and headers it may have set for this transaction.
    public var statement: String {
        let answer =
            "current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true)"
        switch (body, binaryAnswer) {
        case (.image, _):
            return "select r::text, \(answer) from api.\(function)(\(token), $2::bytea, $3::jsonb) as r"
        case (_, .bytes):
            return
                "select r, \(answer) from api.\(function)(\(token), app.request_body($2, '\(function)'), $3::jsonb) as r"
        case (_, .tarArchive):
            return TarArchive.filesStatement(
                from: "api.\(function)(\(token), app.request_body($2, '\(function)'), $3::jsonb)"
            )
        default:
            break
        }
        if streamedContentType != nil {
            return
                "select chunk from api.\(function)(\(token), app.request_body($2, '\(function)'), $3::jsonb) as chunk"
        }
        return """
            select r::text, current_setting('liftbase.response_status', true), \
            current_setting('liftbase.response_headers', true) \
            from api.\(function)(\(token), app.request_body($2, '\(function)'), $3::jsonb) as r
            """
    }

    /// The bearer token as the function takes it. A request by any method but GET may
    /// write, and its token goes through `auth.writable_token`, which refuses a read-only
    /// API key (sql/functions/auth_api_keys.sql): what a key may do is SQL's rule, the method
    /// is what HTTP says of the request.
    var token: String {
        requiresAuth && method != .GET ? "auth.writable_token($1)" : "$1"
    }
}

/// The base path of the API; operational routes (/healthz, /metrics...) live at the root.
public let apiBasePath = "/api/v1"
