import CLibPQ
import Foundation

extension Connection {
    /// Rows gathered per write by `writeRows`.
    static let rowWriteBytes = 64 * 1024

    /// Runs one statement in libpq's single-row mode and hands the first column of each row
    /// to `row` as it arrives, so a result of any size is never held whole on this side.
    /// When `row` throws, the statement is cancelled and whatever is still in flight is read
    /// and dropped, leaving the connection ready for the next query; the error is rethrown.
    /// Throws the statement's error; a PL/pgSQL set-returning function materializes its rows
    /// before sending any, so its errors (a bad token included) come before the first row.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    public func streamRows(_ sql: String, _ parameters: [String?] = [], row: (String?) throws -> Void) throws {
        try inTransactionBlockIfNeeded { try streamRowsOfOneStatement(sql, parameters, row: row) }
    }

    private func streamRowsOfOneStatement(_ sql: String, _ parameters: [String?], row: (String?) throws -> Void) throws
    {
        let handle = try liveHandle()
        let sent = withCStrings(parameters) { values in
            PQsendQueryParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0)
        }
        guard sent == 1 else { throw PostgresError.connection(handle) }
        // Must follow the send at once, before any result is read.
        PQsetSingleRowMode(handle)
        var failure: (any Error)?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE:
                guard failure == nil else { continue }
                do {
                    try row(PQgetisnull(result, 0, 0) == 1 ? nil : String(cString: PQgetvalue(result, 0, 0)))
                } catch {
                    failure = error
                    Self.cancel(handle)
                }
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                break
            default:
                // After a cancel the server answers 57014: the handler's error is the one to keep.
                if failure == nil { failure = PostgresError(result: result, connection: handle) }
            }
        }
        if let failure { throw failure }
    }

    /// Writes the rows of one statement (the first column of each, in order) to `file` in
    /// writes of about 64 KiB: a result of any size passes through a small buffer.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    public func writeRows(_ sql: String, _ parameters: [String?] = [], to file: FileHandle) throws {
        var pending: [UInt8] = []
        pending.reserveCapacity(2 * Self.rowWriteBytes)
        try streamRows(sql, parameters) { row in
            pending.append(contentsOf: (row ?? "").utf8)
            if pending.count >= Self.rowWriteBytes {
                try file.write(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
        try file.write(contentsOf: pending)
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
