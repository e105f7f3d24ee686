import Foundation
import PQ

/// An error answer in the shape of API.md:
/// `{"error": {"code": "...", "message": "...", "fields": {...}}}`.
struct APIError: Error {
    var status: Int
    var code: String
    var message: String
    /// Raw JSON object of field problems (422 only).
    var fields: String?
    /// More members of the error object, as raw JSON `"name":value` pairs (e.g. the id of
    /// the resource that conflicts).
    var extra: [String] = []
    var headers: [(String, String)] = []

    init(status: Int, code: String, message: String, fields: String? = nil, extra: [String] = [], headers: [(String, String)] = []) {
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
        if status >= 500 { members.append("\"request_id\":" + JSONText.string(requestID)) }
        return "{\"error\":{" + members.joined(separator: ",") + "}}"
    }

    static let notFound = APIError(status: 404, code: "not_found", message: "No such route.")
    static let missingToken = APIError(status: 401, code: "missing_token", message: "A bearer token is required.")
    static func tooLarge(limit: Int) -> APIError {
        APIError(status: 413, code: "body_too_large", message: "The request body exceeds \(limit >> 20) MiB.")
    }
    static func malformedCSV(_ reason: String) -> APIError {
        APIError(status: 400, code: "malformed_csv", message: "The request body is not valid CSV: \(reason)")
    }
    static let malformedBody = APIError(status: 400, code: "malformed_json", message: "The request body is not valid JSON.")
    static let unavailable = APIError(status: 503, code: "database_unavailable", message: "The database is unavailable. Retry later.")
    static let internalError = APIError(status: 500, code: "internal_error", message: "Something went wrong on our side.")

    static func methodNotAllowed(_ allowed: [String]) -> APIError {
        APIError(status: 405, code: "method_not_allowed", message: "This route does not accept that method.",
                 headers: [("Allow", allowed.joined(separator: ", "))])
    }

    /// Maps a database error as ARCHITECTURE.md says: LBnnn → nnn with the code and fields
    /// from DETAIL; standard SQLSTATEs like PostgREST; anything else is a 500 without internals.
    init(_ error: PostgresError) {
        let state = error.sqlstate
        if state.hasPrefix("LB"), let status = Int(state.dropFirst(2)), (400...599).contains(status) {
            let detail = error.detail.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
            func json(_ value: Any) -> String? {
                (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]))
                    .map { String(decoding: $0, as: UTF8.self) }
            }
            let extra = (detail ?? [:]).filter { $0.key != "code" && $0.key != "fields" }.sorted { $0.key < $1.key }
                .compactMap { member in json(member.value).map { JSONText.string(member.key) + ":" + $0 } }
            self.init(status: status, code: detail?["code"] as? String ?? "error", message: error.message,
                      fields: (detail?["fields"]).flatMap(json), extra: extra)
            return
        }
        switch state {
        case "23505": self.init(status: 409, code: "conflict", message: "That conflicts with existing data.")
        case "23514", "22P02", "23502", "22003", "22007", "22008":
            // SQL validates first and names the fields; a violation that still reaches here
            // would only name tables and constraints, so none of its words are passed on.
            self.init(status: 422, code: "validation_failed", message: "A value is missing, malformed or out of range.")
        case "42501": self.init(status: 403, code: "forbidden", message: "Not allowed.")
        case "40001", "40P01", "57014": self = .unavailable
        default:
            if state.hasPrefix("28") {
                self.init(status: 401, code: "unauthorized", message: "Not authenticated.")
            } else if state.hasPrefix("08") || state.hasPrefix("57P") {
                self = .unavailable
            } else {
                self = .internalError
            }
        }
    }
}
