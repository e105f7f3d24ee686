import Foundation
import HTTPTypes
import Hummingbird
import LiftbaseCore
import PQ

extension APIResponder {
    /// Rows of text are gathered into chunks of about this many bytes before they cross to
    /// the writer: fewer hand-offs and writes than one per row, still a small buffer.
    static let streamChunkBytes = 64 * 1024

    /// Answers a streamed endpoint: its one statement runs on a pool thread in single-row
    /// mode, and rows go through a bounded channel to the response writer as they come, so
    /// neither side holds the whole body. The answer starts only once the first chunk (or
    /// the end) is there: an error before it, 401 included, is answered as an error. An
    /// error after it can only cut the response short (the status is already sent).
    func stream(_ endpoint: Endpoint, contentType: String, parameters: [String?]) async throws -> Response {
        let channel = RowChannel()
        let statement = endpoint.statement
        Task { [pool] in
            do {
                try await pool.withConnection { connection in
                    var pending = ""
                    try connection.streamRows(statement, parameters) { row in
                        pending += row ?? ""
                        guard pending.utf8.count >= Self.streamChunkBytes else { return true }
                        defer { pending = "" }
                        return channel.send(pending)
                    }
                    if !pending.isEmpty { _ = channel.send(pending) }
                }
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
        let first: String?
        do {
            first = try await channel.next()
        } catch {
            channel.cancel()
            throw apiError(for: error)
        }
        var headers: HTTPFields = [.contentType: contentType]
        if let name = endpoint.pathSegments.last, name.hasSuffix(".csv") {
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        }
        let logger = self.logger
        let body = ResponseBody { writer in
            defer { channel.cancel() }
            guard let first else { return try await writer.finish(nil) }
            try await writer.write(ByteBuffer(string: first))
            do {
                while let chunk = try await channel.next() {
                    try await writer.write(ByteBuffer(string: chunk))
                }
            } catch let error as PostgresError {
                logger.error("streamed answer cut short: \(error)")
                throw error
            }
            try await writer.finish(nil)
        }
        return Response(status: .init(code: endpoint.status), headers: headers, body: body)
    }
}
