import Foundation
import HTTPTypes
import Hummingbird
import LiftbaseCore
import Logging
import NIOPosix
import PQ

extension APIResponder {
    /// Answers an endpoint whose body or answer is bytes (progress photos, docs/photos.md):
    /// an image goes to SQL as the `bytea` it is, an image comes back as the `bytea` SQL
    /// answers, an archive is written from the files SQL answers as rows. What the bytes may
    /// be, and who may see them, SQL decides; here they are only carried.
    func exchangeBytes(
        _ endpoint: Endpoint,
        token: String?,
        arguments: String,
        request: Request,
        logger: Logger
    ) async throws -> Response {
        // An image goes as its bytes; any other body (a GET's, which must be none or an
        // object) as text to app.request_body, as on every other route.
        let body: Connection.Value =
            endpoint.body == .image
            ? .bytes(try await Self.imageBody(request, limit: endpoint.maximumBodySize))
            : try await Self.bodyText(request, for: endpoint).map { .text($0) } ?? .null
        let parameters: [Connection.Value] = [token.map { .text($0) } ?? .null, body, .text(arguments)]
        if endpoint.binaryAnswer == .tarArchive {
            return try await archive(endpoint, parameters: parameters, isRead: Self.isRead(request), logger: logger)
        }
        let statement = endpoint.statement
        let rows = try await database(retryingLostConnection: Self.isRead(request), logger: logger) { connection in
            try connection.queryBytes(statement, parameters)
        }
        guard let answer = rows.first, answer.count == 3 else {
            throw Self.apiError(for: EndpointAnswerError.noRow(function: endpoint.function), logger: logger)
        }
        let text = { (value: [UInt8]?) in value.map { String(decoding: $0, as: UTF8.self) } }
        let status =
            text(answer[1]).flatMap { Int($0) }.map { HTTPResponse.Status(code: $0) }
            ?? HTTPResponse.Status(code: endpoint.status)
        var headers = try Self.responseHeaders(text(answer[2]), function: endpoint.function)
        guard status != .noContent, status != .notModified else { return Response(status: status, headers: headers) }
        // A JSON answer may be null (a status that has no body); an image answered 200 must have bytes.
        guard let value = answer[0] else {
            if endpoint.binaryAnswer == .bytes {
                throw Self.apiError(for: EndpointAnswerError.noRow(function: endpoint.function), logger: logger)
            }
            return Response(status: status, headers: headers)
        }
        if endpoint.binaryAnswer == nil { headers[.contentType] = "application/json" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value)))
    }

    /// An image body's bytes, up to `limit` (413 beyond it, before reading further).
    static func imageBody(_ request: Request, limit: Int) async throws -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge(limit: limit)
        }
        do {
            return Array(try await request.body.collect(upTo: limit).readableBytesView)
        } catch let error as HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.tooLarge(limit: limit)
        }
    }

    /// A tar archive of the files the endpoint's function answers (TarArchive): written to a
    /// spool file as the rows come, one file's bytes at a time, on a pool thread; sent from
    /// the file once the statement is done, as `stream` sends an export.
    private func archive(
        _ endpoint: Endpoint,
        parameters: [Connection.Value],
        isRead: Bool,
        logger: Logger
    ) async throws -> Response {
        let statement = endpoint.statement
        let spool = try await spooled(retryingLostConnection: isRead, logger: logger) { connection, file in
            try connection.streamByteRows(statement, parameters) { row in
                try TarArchive.writeFile(row: row) { try file.write(contentsOf: $0) }
            }
            try file.write(contentsOf: TarArchive.end)
        }
        let headers: HTTPFields = [
            .contentType: "application/x-tar",
            .contentDisposition: "attachment; filename=\"progress-photos.tar\"",
        ]
        return Response(status: .init(code: endpoint.status), headers: headers, body: Self.fileBody(spool))
    }
}
