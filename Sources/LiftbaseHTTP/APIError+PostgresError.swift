import Foundation
import HTTPTypes
import PQ

extension APIError {
    /// The answer to a database error: `LBnnn` → status nnn with the code and fields from
    /// the error's DETAIL (JSON); standard SQLSTATEs as PostgREST maps them; anything else a
    /// 500 that says nothing of the database.
    init(_ error: PostgresError) {
        if let custom = APIError(custom: error) {
            self = custom
            return
        }
        switch error.sqlstate {
        case .uniqueViolation, .foreignKeyViolation:
            // A foreign key violation reaches here only when a row the request refers to was
            // deleted by a concurrent transaction after SQL looked it up: a conflict, not a defect.
            self.init(status: .conflict, code: "conflict", message: "That conflicts with existing data.")
        case .checkViolation, .notNullViolation:
            // SQL validates first and names the fields; a violation that still reaches here
            // would only name tables and constraints, so none of its words are passed on.
            self.init(
                status: .unprocessableContent,
                code: "validation_failed",
                message: "A value is missing, malformed or out of range."
            )
        case .untranslatableCharacter:
            // `\u0000` escaped inside a JSON body: text in PostgreSQL cannot hold it.
            self = .invalidText
        case .insufficientPrivilege:
            self.init(status: .forbidden, code: "forbidden", message: "Not allowed.")
        case .queryCanceled:
            // The statement timeout of the server's connections (or an operator's cancel).
            self = .requestTimeout
        case .serializationFailure, .deadlockDetected:
            self = .unavailable
        default:
            switch error.sqlstate.errorClass {
            case PostgresError.Code.dataException.errorClass:
                // A value SQL could not take (a number out of range, a malformed date...):
                // bad input, never a server error; its words name no field, so none are passed on.
                self.init(
                    status: .unprocessableContent,
                    code: "invalid_value",
                    message: "A value is malformed or out of range."
                )
            case PostgresError.Code.programLimitExceeded.errorClass:
                // Input too large or too deeply nested for the server to take.
                self.init(
                    status: .badRequest,
                    code: "too_complex",
                    message: "The request is too large or too deeply nested."
                )
            case PostgresError.Code.invalidAuthorizationSpecification.errorClass:
                self.init(status: .unauthorized, code: "unauthorized", message: "Not authenticated.")
            case PostgresError.Code.connectionException.errorClass:
                self = .unavailable
            case PostgresError.Code.operatorIntervention.errorClass where error.sqlstate.rawValue.hasPrefix("57P"):
                // 57P01..57P05: the server is shutting down or cannot take the connection.
                self = .unavailable
            default:
                self = .internal
            }
        }
    }

    /// `LBnnn`, raised by Liftbase's SQL with a DETAIL of `{"code": ..., "fields": ...}`.
    private init?(custom error: PostgresError) {
        let state = error.sqlstate.rawValue
        guard state.hasPrefix("LB"), let code = Int(state.dropFirst(2)), (400...599).contains(code) else { return nil }
        let detail = error.detail.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
        func json(_ value: Any) -> String? {
            (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]))
                .map { String(decoding: $0, as: UTF8.self) }
        }
        let extra = (detail ?? [:]).filter { $0.key != "code" && $0.key != "fields" }.sorted { $0.key < $1.key }
            .compactMap { member in json(member.value).map { JSONText.string(member.key) + ":" + $0 } }
        self.init(
            status: HTTPResponse.Status(code: code),
            code: detail?["code"] as? String ?? "error",
            message: error.message,
            fields: (detail?["fields"]).flatMap(json),
            extra: extra
        )
    }
}
