import CLibPQ

extension Connection {
    /// Runs one statement in libpq's single-row mode and hands the first column of each row
    /// to `row` as it arrives, so a result of any size is never held whole on this side.
    /// `row` returns false to stop early: the statement is then cancelled and whatever is
    /// still in flight is read and dropped, leaving the connection ready for the next query.
    /// Throws the statement's error; a PL/pgSQL set-returning function materializes its rows
    /// before sending any, so its errors (a bad token included) come before the first row.
    public func streamRows(_ sql: String, _ parameters: [String?] = [], row: (String?) throws -> Bool) throws {
        let handle = try liveHandle()
        let sent = withCStrings(parameters) { values in
            PQsendQueryParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0)
        }
        guard sent == 1 else { throw PostgresError.connection(handle) }
        // Must follow the send at once, before any result is read.
        PQsetSingleRowMode(handle)
        var failure: (any Error)?
        var stopped = false
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE:
                guard failure == nil, !stopped else { continue }
                let value = PQgetisnull(result, 0, 0) == 1 ? nil : String(cString: PQgetvalue(result, 0, 0))
                do {
                    if try !row(value) {
                        stopped = true
                        Self.cancel(handle)
                    }
                } catch {
                    failure = error
                    Self.cancel(handle)
                }
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                break
            default:
                // After a cancel the server answers 57014: expected, not a failure.
                if failure == nil && !stopped { failure = PostgresError(result: result, connection: handle) }
            }
        }
        if let failure { throw failure }
    }

    /// Asks the server to stop the running statement (best effort: if it already finished,
    /// the remaining rows are simply read and dropped).
    private static func cancel(_ handle: OpaquePointer) {
        guard let cancel = PQgetCancel(handle) else { return }
        var message = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &message, Int32(message.count))
        PQfreeCancel(cancel)
    }
}
