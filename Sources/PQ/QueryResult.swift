/// The rows of a completed statement, copied out of libpq as text (the text protocol).
public struct QueryResult: Sendable {
    public let columns: [String]
    public let rows: [[String?]]
    /// The number from the command tag: rows affected by INSERT/UPDATE/DELETE/COPY.
    public let affectedRows: Int

    public init(columns: [String], rows: [[String?]], affectedRows: Int) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
    }

    /// The first column of the first row, the usual shape of `select api.fn(...)`.
    public var scalar: String? { rows.first?.first ?? nil }
}

/// One run of a prepared statement: its text and its parameters (text, `nil` as NULL).
public struct PreparedCall: Sendable {
    public var sql: String
    public var parameters: [String?]
    /// The statement reads only (an API GET). In a pipeline it runs in a read-only
    /// transaction, where PostgreSQL refuses writes and row locks: it never waits on a row
    /// another transaction holds, so it never holds up the statements behind it. One that
    /// tries to write (a session's once-a-minute `last_seen_at`) is refused before it
    /// changed anything and runs again alone, read-write.
    public var readOnly: Bool

    public init(_ sql: String, _ parameters: [String?], readOnly: Bool = false) {
        self.sql = sql
        self.parameters = parameters
        self.readOnly = readOnly
    }

    /// The size of the parameters as sent.
    public var parameterBytes: Int { parameters.reduce(0) { $0 + ($1?.utf8.count ?? 0) } }
}
