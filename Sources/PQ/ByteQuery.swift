import CLibPQ
import Foundation

/// Statements whose values are bytes, not text: an image going into a `bytea` argument and
/// one coming out of a `bytea` result. Sent and read in libpq's binary format, so the bytes
/// pass as they are (the text format would double them as hex). In the binary format a
/// `text` value is its UTF-8 bytes as well, so a statement may mix the two; other types
/// would come in their binary encodings, so such statements select only `text` and `bytea`.
extension Connection {
    /// A parameter: text, bytes, or NULL.
    public enum Value: Sendable {
        case text(String)
        case bytes([UInt8])
        case null
    }

    /// Runs one statement and answers its rows, each value as bytes (nil for NULL).
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    public func queryBytes(_ sql: String, _ parameters: [Value]) throws -> [[[UInt8]?]] {
        var rows: [[[UInt8]?]] = []
        try streamByteRows(sql, parameters, singleRow: false) { rows.append($0) }
        return rows
    }

    /// Runs one statement in single-row mode and hands each row to `row` as it arrives, so
    /// a result of many images is never held whole on this side. When `row` throws, the
    /// statement is cancelled, what is in flight is dropped and the error is rethrown.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    public func streamByteRows(_ sql: String, _ parameters: [Value], row: ([[UInt8]?]) throws -> Void) throws {
        try streamByteRows(sql, parameters, singleRow: true, row: row)
    }

    private func streamByteRows(
        _ sql: String,
        _ parameters: [Value],
        singleRow: Bool,
        row: ([[UInt8]?]) throws -> Void
    ) throws {
        try inTransactionBlockIfNeeded {
            let handle = try liveHandle()
            guard send(sql, parameters, handle: handle) else { throw PostgresError.connection(handle) }
            if singleRow { PQsetSingleRowMode(handle) }
            var failure: (any Error)?
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_SINGLE_TUPLE, PGRES_TUPLES_OK:
                    guard failure == nil else { continue }
                    do {
                        for index in 0..<PQntuples(result) { try row(Self.values(of: result, row: index)) }
                    } catch {
                        failure = error
                        if let cancel = PQgetCancel(handle) {
                            var message = [CChar](repeating: 0, count: 256)
                            _ = PQcancel(cancel, &message, Int32(message.count))
                            PQfreeCancel(cancel)
                        }
                    }
                case PGRES_COMMAND_OK:
                    break
                default:
                    // After a cancel the server answers 57014: the handler's error is the one to keep.
                    if failure == nil { failure = PostgresError(result: result, connection: handle) }
                }
            }
            if let failure { throw failure }
        }
    }

    /// Sends the statement with each parameter in its own format and asks for binary results.
    private func send(_ sql: String, _ parameters: [Value], handle: OpaquePointer) -> Bool {
        let buffers: [[UInt8]?] = parameters.map {
            switch $0 {
            case .text(let text): return Array(text.utf8)
            case .bytes(let bytes): return bytes
            case .null: return nil
            }
        }
        let lengths = buffers.map { Int32($0?.count ?? 0) }
        let formats = parameters.map { value -> Int32 in if case .bytes = value { return 1 } else { return 0 } }
        // Text parameters go as C strings: each buffer gets a NUL after its bytes.
        let copies: [UnsafeMutablePointer<CChar>?] = buffers.map { buffer in
            buffer.map { bytes in
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                bytes.withUnsafeBytes { source in
                    UnsafeMutableRawPointer(copy).copyMemory(
                        from: source.baseAddress ?? UnsafeRawPointer(copy),
                        byteCount: bytes.count
                    )
                }
                copy[bytes.count] = 0
                return copy
            }
        }
        defer { for copy in copies { copy?.deallocate() } }
        let values = copies.map { $0.map { UnsafePointer($0) } }
        return PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 1) == 1
    }

    private static func values(of result: OpaquePointer, row: Int32) -> [[UInt8]?] {
        (0..<PQnfields(result)).map { column in
            guard PQgetisnull(result, row, column) == 0 else { return nil }
            let length = Int(PQgetlength(result, row, column))
            guard length > 0, let start = PQgetvalue(result, row, column) else { return [] }
            return start.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
        }
    }
}
