import HTTPTypes
import Hummingbird

/// An error answer in Liftbase's one error shape:
/// `{"error": {"code": "...", "message": "...", "fields": {...}}}`, plus `request_id` on a
/// 5xx so an operator can find the log lines of the failure.
struct APIError: HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Raw JSON object of field problems (422 only).
    var fields: String?
    /// More members of the error object, as raw JSON `"name":value` pairs (e.g. the id of
    /// the resource that conflicts).
    var extra: [String] = []
    var headers: HTTPFields = [:]

    init(
        status: HTTPResponse.Status,
        code: String,
        message: String,
        fields: String? = nil,
        extra: [String] = [],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.extra = extra
        self.headers = headers
    }

    func body(requestID: String) -> String {
        var members = ["\"code\":" + JSONText.string(code), "\"message\":" + JSONText.string(message)]
        if let fields { members.append("\"fields\":" + fields) }
        members += extra
        if status.kind == .serverError { members.append("\"request_id\":" + JSONText.string(requestID)) }
        return "{\"error\":{" + members.joined(separator: ",") + "}}"
    }

    /// The answer to an error that escaped the responder, which answers every error it
    /// meets itself (`response(requestID:)`); the request id is the client's when it is a
    /// sane one, else a new one.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        response(requestID: APIResponder.requestID(from: request))
    }

    func response(requestID: String) -> Response {
        var response = APIResponder.json(body(requestID: requestID), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    static let notFound = APIError(status: .notFound, code: "not_found", message: "No such route.")
    static let missingToken = APIError(
        status: .unauthorized,
        code: "missing_token",
        message: "A bearer token is required."
    )
    static func tooLarge(limit: Int) -> APIError {
        APIError(
            status: .contentTooLarge,
            code: "body_too_large",
            message: "The request body exceeds \(limit >> 20) MiB."
        )
    }
    static func malformedCSV(_ reason: String) -> APIError {
        APIError(status: .badRequest, code: "malformed_csv", message: "The request body is not valid CSV: \(reason)")
    }
    static let malformedBody = APIError(
        status: .badRequest,
        code: "malformed_json",
        message: "The request body is not valid JSON."
    )
    /// A NUL byte, which no text in PostgreSQL can hold, in the path, the query or the body.
    static let invalidText = APIError(
        status: .badRequest,
        code: "invalid_text",
        message: "The request holds a NUL character, which no text may contain."
    )
    static func tooDeep(limit: Int) -> APIError {
        APIError(
            status: .badRequest,
            code: "body_too_deep",
            message: "The JSON body nests deeper than \(limit) levels."
        )
    }
    static func unsupportedMediaType(expected: String) -> APIError {
        APIError(
            status: .unsupportedMediaType,
            code: "unsupported_media_type",
            message: "This route takes a body of type \(expected)."
        )
    }
    static let unavailable = APIError(
        status: .serviceUnavailable,
        code: "database_unavailable",
        message: "The database is unavailable. Retry later."
    )
    /// The request's SQL ran past the statement timeout and was stopped (SQLSTATE 57014).
    static let requestTimeout = APIError(
        status: .serviceUnavailable,
        code: "request_timeout",
        message: "The request took longer than the server allows and was stopped. Retry later."
    )
    /// The server is stopping: the client should go to another instance, on a new connection.
    static let shuttingDown = APIError(
        status: .serviceUnavailable,
        code: "shutting_down",
        message: "The server is shutting down. Retry on a new connection.",
        headers: [.connection: "close", .retryAfter: "1"]
    )
    static let `internal` = APIError(
        status: .internalServerError,
        code: "internal_error",
        message: "Something went wrong on our side."
    )

    static func methodNotAllowed(_ allowed: [String]) -> APIError {
        APIError(
            status: .methodNotAllowed,
            code: "method_not_allowed",
            message: "This route does not accept that method.",
            headers: [.allow: allowed.joined(separator: ", ")]
        )
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-Id")!
}
