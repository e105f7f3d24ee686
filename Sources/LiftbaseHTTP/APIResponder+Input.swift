import Foundation
import HTTPTypes
import Hummingbird
import LiftbaseCore
import NIOPosix

/// What the transport owns of a request's input: bytes, encodings, media types and nesting,
/// checked before SQL sees anything. Values and shapes are SQL's to judge.
extension APIResponder {
    /// JSON bodies may nest this deep (objects and arrays); deeper ones are refused before
    /// parsing, since parsing them costs stack in PostgreSQL and no real body needs it.
    static let maximumJSONDepth = 512

    /// What the server knows of where a request comes from and what sent it, by the argument
    /// name SQL reads it under: the client's address, and its `User-Agent` (the security log).
    static let clientAddressArgument = "client_address"
    static let userAgentArgument = "user_agent"
    /// The claims of an ID token the server verified (IDTokenVerifier), for sign-in with a
    /// provider.
    static let idTokenClaimsArgument = "oidc_claims"
    /// The media type an image body says it is (its Content-Type, lowercased, without
    /// parameters), for SQL to compare with what the bytes are.
    static let contentTypeArgument = "content_type"
    /// The arguments only the server sets: a query parameter of one of these names is refused.
    static let serverArguments: Set<String> = [
        clientAddressArgument, userAgentArgument, idTokenClaimsArgument, contentTypeArgument,
    ]

    static let conditionalHeaders: [(String, HTTPField.Name)] = [
        ("if_none_match", .ifNoneMatch), ("if_match", .ifMatch),
    ]

    /// The path and query parameters as one JSON object of strings for SQL (path parameters
    /// win over query parameters of the same name). A NUL in any of them is refused: no text
    /// in PostgreSQL can hold it. No parameter of the API is a list, so one given twice is
    /// refused rather than one of its values silently dropped.
    ///
    /// The conditional request headers join them (`If-None-Match` as `if_none_match`,
    /// `If-Match` as `if_match`, verbatim): SQL owns versions, so it judges them too
    /// (docs/sync.md). A query parameter of one of those names is refused: a condition
    /// comes only from its header, never from a link someone crafted.
    ///
    /// So do the client's address (`client_address`), which the rate limits of the
    /// sensitive routes count (sql/functions/auth_rate_limits.sql), and its `User-Agent`
    /// (`user_agent`), which the security log keeps; a query parameter of either name is
    /// refused as well.
    static func argumentsJSON(
        parameters: [String: String],
        query: Parameters,
        headers: HTTPFields = [:],
        clientAddress: String? = nil,
        idTokenClaims: String? = nil,
        imageContentType: Bool = false
    ) throws -> String {
        var arguments = parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let conditions = conditionalHeaders.compactMap { name, field in
            headers[values: field].isEmpty ? nil : (name, headers[values: field].joined(separator: ", "))
        }
        var given: Set<String> = []
        for (name, value) in query where parameters[String(name)] == nil {
            if conditionalHeaders.contains(where: { $0.0 == String(name) }) {
                throw APIError(
                    status: .badRequest,
                    code: "invalid_parameter",
                    message: "The query parameter \(name) is not taken: send the condition as a header."
                )
            }
            if serverArguments.contains(String(name)) {
                throw APIError(
                    status: .badRequest,
                    code: "invalid_parameter",
                    message: "The query parameter \(name) is not taken: only the server sets it."
                )
            }
            guard given.insert(String(name)).inserted else {
                throw APIError(
                    status: .badRequest,
                    code: "invalid_parameter",
                    message: "The query parameter \(name) is given more than once."
                )
            }
            arguments.append((String(name), String(value)))
        }
        arguments += conditions
        if let clientAddress { arguments.append((clientAddressArgument, clientAddress)) }
        if let userAgent = headers[.userAgent] { arguments.append((userAgentArgument, userAgent)) }
        if let idTokenClaims { arguments.append((idTokenClaimsArgument, idTokenClaims)) }
        if imageContentType, let mediaType = mediaType(headers[.contentType]) {
            arguments.append((contentTypeArgument, mediaType))
        }
        for (name, value) in arguments where name.utf8.contains(0) || value.utf8.contains(0) {
            throw APIError.invalidText
        }
        return JSONText.object(arguments)
    }

    /// The body as text for `app.request_body`, or nil when there is none. A CSV route's body
    /// becomes the JSON document of `CSVImportDocument`, hashed as it was sent.
    static func bodyText(_ request: Request, for endpoint: Endpoint) async throws -> String? {
        let limit = endpoint.maximumBodySize
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge(limit: limit)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.tooLarge(limit: limit)
        }
        guard buffer.readableBytes > 0 else { return nil }
        try checkMediaType(request.headers[.contentType], for: endpoint.body)
        let bytes = buffer.readableBytesView
        // libpq sends parameters as C strings: a NUL would cut the text short.
        if bytes.contains(0) { throw APIError.invalidText }
        switch endpoint.body {
        case .json:
            try checkJSON(bytes, maximumDepth: maximumJSONDepth)
            guard buffer.readableBytes > Endpoint.defaultMaximumBodySize else {
                return String(decoding: bytes, as: UTF8.self)
            }
            // A document of many MiB (a Liftbase export being imported) is decoded on NIO's
            // blocking pool, like CSV, not on a cooperative thread.
            let body = Array(bytes)
            return try await NIOThreadPool.singleton.runIfActive { String(decoding: body, as: UTF8.self) }
        case .csv:
            // Up to 20 MiB of CSV takes a while to parse and hash: on NIO's blocking pool, so
            // no cooperative thread (and no event loop) is held for it.
            let body = Array(bytes)
            do {
                return try await NIOThreadPool.singleton.runIfActive {
                    try CSVImportDocument.json(
                        fromCSV: String(decoding: body, as: UTF8.self),
                        fileSHA256: SHA256.hex(body)
                    )
                }
            } catch let error as CSVImportDocument.Malformed {
                throw APIError.malformedCSV(error.reason)
            }
        case .image:
            // An image is bytes, never text: `imageBody` reads it.
            throw APIError.unsupportedMediaType(expected: "application/json")
        }
    }

    /// A body must say it is what the route takes: `application/json` for JSON routes,
    /// `text/csv` for CSV ones (parameters such as charset allowed); anything else is 415.
    static func checkMediaType(_ header: String?, for body: Endpoint.Body) throws {
        let expected = body == .json ? "application/json" : "text/csv"
        guard mediaType(header) == expected else { throw APIError.unsupportedMediaType(expected: expected) }
    }

    /// The media type of a Content-Type value: lowercased, without its parameters.
    static func mediaType(_ header: String?) -> String? {
        header?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Refuses, in one pass over the bytes, JSON whose objects and arrays nest deeper than
    /// `maximumDepth` (brackets inside strings do not count) and strings holding the escape
    /// `\u0000`, a NUL that no text in PostgreSQL can hold. Malformed JSON is left to SQL.
    static func checkJSON(_ bytes: some Sequence<UInt8>, maximumDepth: Int) throws {
        var depth = 0
        var inString = false
        var escaped = false
        // After `\u`, how many of the four hex digits were `0` so far (nil: not in one).
        var zerosOfEscape: Int?
        for byte in bytes {
            if let zeros = zerosOfEscape {
                if byte == UInt8(ascii: "0") {
                    if zeros == 3 { throw APIError.invalidText }
                    zerosOfEscape = zeros + 1
                    continue
                }
                zerosOfEscape = nil
            }
            if inString {
                if escaped {
                    escaped = false
                    if byte == UInt8(ascii: "u") { zerosOfEscape = 0 }
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > maximumDepth { throw APIError.tooDeep(limit: maximumDepth) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
    }
}
