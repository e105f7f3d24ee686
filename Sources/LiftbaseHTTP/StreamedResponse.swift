import Foundation
import HTTPTypes
import Hummingbird
import LiftbaseCore
import Logging
import NIOPosix
import PQ

extension APIResponder {
    /// The spool file is read back in chunks of this many bytes.
    static let streamChunkBytes = 64 * 1024

    /// Answers a streamed endpoint (exports of years of history). Its one statement runs on
    /// a pool thread in single-row mode and the rows go to an unlinked temporary file as they
    /// come; the connection returns to the pool as soon as the statement is done, and the
    /// response is then read from the file chunk by chunk. Neither the server nor libpq holds
    /// the whole body, and a slow or stalled client holds a file, never a database
    /// connection. Every error, 401 included, is known before the answer starts.
    func stream(
        _ endpoint: Endpoint,
        contentType: String,
        parameters: [String?],
        retryingLostConnection: Bool,
        logger: Logger
    ) async throws -> Response {
        let statement = endpoint.statement
        let spool = try await spooled(retryingLostConnection: retryingLostConnection, logger: logger) {
            connection,
            file in
            try connection.writeRows(statement, parameters, to: file)
        }
        var headers: HTTPFields = [.contentType: contentType]
        if let name = endpoint.pathSegments.last, name.hasSuffix(".csv") {
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        }
        return Response(status: .init(code: endpoint.status), headers: headers, body: Self.fileBody(spool))
    }

    /// A spool file that `write` fills on a pooled connection, rewound for reading: the
    /// connection returns to the pool before the first byte goes to the client.
    func spooled(
        retryingLostConnection: Bool,
        logger: Logger,
        _ write: @escaping @Sendable (Connection, FileHandle) throws -> Void
    ) async throws -> FileHandle {
        try await database(retryingLostConnection: retryingLostConnection, logger: logger) { connection in
            let file = try SpoolFile.make()
            try write(connection, file)
            try file.seek(toOffset: 0)
            return file
        }
    }

    /// A response body read from `spool` chunk by chunk, closing it at the end.
    static func fileBody(_ spool: FileHandle) -> ResponseBody {
        ResponseBody { writer in
            defer { try? spool.close() }
            // File reads block: on NIO's blocking pool, not on a cooperative thread.
            while let chunk = try await NIOThreadPool.singleton.runIfActive({
                try spool.read(upToCount: Self.streamChunkBytes)
            }),
                !chunk.isEmpty
            {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
    }
}
