import CLibPQ

/// An error reported by the PostgreSQL server, with its diagnostic fields.
///
/// `description` is terse (message and SQLSTATE): `detail` and `hint` may quote row values,
/// so a caller decides where they may go (a debug log, never an answer to a client).
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public var sqlstate: Code
    public var message: String
    public var detail: String?
    public var hint: String?

    public init(sqlstate: Code, message: String, detail: String? = nil, hint: String? = nil) {
        self.sqlstate = sqlstate
        self.message = message
        self.detail = detail
        self.hint = hint
    }

    /// SQLSTATE class 08: the connection is gone or could not be made.
    public var isConnectionFailure: Bool { sqlstate.errorClass == Code.connectionException.errorClass }

    /// The connection broke under the statement (a terminated backend, a server restart,
    /// a failover): the transaction did not commit, and the connection cannot be used again.
    public var isLostConnection: Bool {
        isConnectionFailure || sqlstate == .adminShutdown || sqlstate == .crashShutdown
    }

    /// A serialization failure or a deadlock: the transaction may simply be run again.
    public var isRetryableTransactionFailure: Bool {
        sqlstate == .serializationFailure || sqlstate == .deadlockDetected
    }

    public var description: String { "\(message) (SQLSTATE \(sqlstate.rawValue))" }

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
            sqlstate: field("C").map(Code.init(rawValue:)) ?? (connectionLost ? .connectionFailure : .internalError),
            message: field("M") ?? (fallbackMessage.isEmpty ? "unknown libpq error" : fallbackMessage),
            detail: field("D"),
            hint: field("H")
        )
    }

    /// The connection failed or broke (no result to read fields from): libpq's message,
    /// under SQLSTATE 08006 connection_failure, which is what the server would have said.
    static func connection(_ handle: OpaquePointer?) -> PostgresError {
        let message = handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
        return PostgresError(sqlstate: .connectionFailure, message: message.trimmingTrailingNewlines())
    }
}

/// A misuse of a connection found on the client side, before or instead of asking the
/// server: no SQLSTATE applies, so none is invented.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection was closed with `close()`.
    case connectionClosed
    /// `copyIn` was given a statement that is not `COPY ... FROM STDIN`.
    case notCopyFromStdin

    public var description: String {
        switch self {
        case .connectionClosed: return "the connection is closed"
        case .notCopyFromStdin: return "not a COPY ... FROM STDIN statement"
        }
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline || last == " " { text = text.dropLast() }
        return String(text)
    }
}
