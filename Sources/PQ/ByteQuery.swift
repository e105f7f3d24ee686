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
    /// Text goes as a C string copy; bytes go from their own storage, uncopied (an image is
    /// megabytes, and libpq copies it into its output buffer anyway).
    private func send(_ sql: String, _ parameters: [Value], handle: OpaquePointer) -> Bool {
        let lengths = parameters.map { value -> Int32 in
            if case .bytes(let bytes) = value { Int32(bytes.count) } else { 0 }
        }
        let formats = parameters.map { value -> Int32 in if case .bytes = value { 1 } else { 0 } }
        // Text as C strings; empty bytes as an empty one too, since an empty array may have no
        // storage to point at and libpq reads no byte of a zero-length binary value.
        let texts: [UnsafeMutablePointer<CChar>?] = parameters.map { value in
            switch value {
            case .text(let text): strdup(text)
            case .bytes(let bytes): bytes.isEmpty ? strdup("") : nil
            case .null: nil
            }
        }
        defer { for text in texts { free(text) } }
        /// The parameters' pointers, each array's storage held for the call by a nested closure.
        func withValues(
            _ index: Int,
            _ values: [UnsafePointer<CChar>?],
            _ body: ([UnsafePointer<CChar>?]) -> Int32
        )
            -> Int32
        {
            guard index < parameters.count else { return body(values) }
            switch parameters[index] {
            case .bytes(let bytes) where !bytes.isEmpty:
                return bytes.withUnsafeBytes { raw in
                    withValues(index + 1, values + [raw.baseAddress?.assumingMemoryBound(to: CChar.self)], body)
                }
            default:
                return withValues(index + 1, values + [texts[index].map { UnsafePointer($0) }], body)
            }
        }
        return withValues(0, []) { values in
            PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 1)
        } == 1
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
