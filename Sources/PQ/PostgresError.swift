import CLibPQ

/// An error reported by PostgreSQL or by libpq, with the server's diagnostic fields.
///
/// `sqlstate` is the five-character SQLSTATE; connection-level failures that carry no
/// server diagnostics use class 08 (`08006`) so callers can treat them as "unavailable".
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public var sqlstate: String
    public var message: String
    public var detail: String?
    public var hint: String?
    public var severity: String?

    public init(sqlstate: String, message: String, detail: String? = nil, hint: String? = nil, severity: String? = nil) {
        self.sqlstate = sqlstate
        self.message = message
        self.detail = detail
        self.hint = hint
        self.severity = severity
    }

    /// SQLSTATE class 08: the connection is gone or could not be made.
    public var isConnectionFailure: Bool { sqlstate.hasPrefix("08") }

    /// 40001 serialization_failure and 40P01 deadlock_detected: safe to retry the transaction.
    public var isRetryableTransactionFailure: Bool { sqlstate == "40001" || sqlstate == "40P01" }

    public var description: String {
        var text = "\(message) (SQLSTATE \(sqlstate))"
        if let detail { text += " detail: \(detail)" }
        if let hint { text += " hint: \(hint)" }
        return text
    }

    /// Reads the diagnostic fields of a failed result. The field codes are single characters
    /// (`PG_DIAG_SQLSTATE` is `'C'` and friends); those macros do not import into Swift.
    init(result: OpaquePointer, connection: OpaquePointer?) {
        func field(_ code: Character) -> String? {
            guard let pointer = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: pointer)
        }
        let connectionLost = connection.map { PQstatus($0) == CONNECTION_BAD } ?? false
        let fallbackMessage = String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines()
        self.init(
            sqlstate: field("C") ?? (connectionLost ? "08006" : "XX000"),
            message: field("M") ?? (fallbackMessage.isEmpty ? "unknown libpq error" : fallbackMessage),
            detail: field("D"),
            hint: field("H"),
            severity: field("V") ?? field("S")
        )
    }

    /// An error from the connection itself (no result available), e.g. a failed connect.
    static func connection(_ handle: OpaquePointer?, sqlstate: String = "08006") -> PostgresError {
        let message = handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
        return PostgresError(sqlstate: sqlstate, message: message.trimmingTrailingNewlines())
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline || last == " " { text = text.dropLast() }
        return String(text)
    }
}
