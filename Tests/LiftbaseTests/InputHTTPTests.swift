import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import Logging
import PQ
import Testing

@testable import LiftbaseHTTP

#if canImport(Glibc)
import Glibc
#endif

/// What the transport refuses before SQL sees a request: NUL characters, bodies nested too
/// deep, bodies of the wrong media type. None of them may reach a 500.
@Suite("input the transport refuses", .timeLimit(.minutes(2)))
struct InputHTTPTests {
    func post(
        _ client: any TestClientProtocol,
        _ path: String,
        _ body: String,
        contentType: String? = "application/json",
        token: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> APIAnswer {
        var headers: HTTPFields = [:]
        if let contentType { headers[.contentType] = contentType }
        if let token { headers[.authorization] = "Bearer \(token)" }
        return APIAnswer(
            try await client.execute(
                uri: apiBasePath + path,
                method: .post,
                headers: headers,
                body: ByteBuffer(string: body)
            ),
            method: .post,
            uri: apiBasePath + path,
            sourceLocation: sourceLocation
        )
    }

    @Test("a query parameter given twice is 400 invalid_parameter, never one of its values dropped")
    func repeatedQueryParameter() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "repeat")
            for path in ["/exercises?category=cardio&category=strength", "/plans?limit=5&limit=5"] {
                let answer = try await client.send(.get, path, token: token)
                #expect(answer.status == .badRequest, "\(path)")
                #expect(answer.errorCode == "invalid_parameter", "\(path)")
            }
            #expect(try await client.send(.get, "/exercises?category=cardio&limit=5", token: token).status == .ok)
        }
    }

    @Test("a condition comes only from its header: a query parameter if_match or if_none_match is 400")
    func conditionInQuery() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "condition")
            for path in ["/user/goals?if_none_match=%22u1%22", "/me?if_match=*"] {
                let answer = try await client.send(.get, path, token: token)
                #expect(answer.status == .badRequest, "\(path)")
                #expect(answer.errorCode == "invalid_parameter", "\(path)")
            }
        }
    }

    @Test("a NUL in a query parameter or a path segment is 400 invalid_text, with a token or without")
    func nulInPathAndQuery() async throws {
        // A live server: the router test client does not decode the URI as the server does.
        try await withTestClient(mode: .live) { client in
            let token = try await registerUser(client, "nul")
            let cases: [(HTTPRequest.Method, String, String?)] = [
                (.post, "/auth/login?x=%00", nil), (.get, "/plans?x=%00", token), (.get, "/plans?x=%00", nil),
                (.get, "/training/sessions/%00", token), (.get, "/plans?cursor=a%00b", token),
            ]
            for (method, path, token) in cases {
                let answer = try await client.send(method, path, token: token)
                #expect(answer.status == .badRequest, "\(path)")
                #expect(answer.errorCode == "invalid_text", "\(path)")
            }
        }
    }

    @Test("a body member the route does not take is 422 unknown_field naming it by its path, and nothing is written")
    func unknownMembers() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "unknown")
            let entry: [String: Any] = [
                "name": "Toast", "calories": 120, "entry_date": "2026-03-02", "meal_type": "breakfast",
                "unknown_member": 5,
            ]
            let refused = try await client.send(.post, "/nutrition/entries", entry, token: token)
            #expect(refused.status == .unprocessableContent && refused.errorCode == "unknown_field")
            #expect(
                refused["error", "fields"] as? [String: String] == [
                    "unknown_member": "is not a member this request takes"
                ]
            )
            let entries = try await client.send(.get, "/nutrition/entries?date=2026-03-02", token: token)
            #expect((entries["items"] as? [Any])?.isEmpty == true, "nothing of the refused entry was saved")

            let session: [String: Any] = [
                "status": "completed",
                "exercises": [["exercise_name": "Squat", "sets": [["reps": 5, "weight": 100]]]],
            ]
            let nested = try await client.send(.post, "/training/sessions", session, token: token)
            #expect(nested.status == .unprocessableContent && nested.errorCode == "unknown_field")
            #expect(
                nested["error", "fields"] as? [String: String] == [
                    "exercises[0].sets[0].weight": "is not a member this request takes"
                ]
            )
        }
    }

    @Test("a NUL in a body, raw or escaped as \\u0000, is 400 invalid_text and writes nothing")
    func nulInBody() async throws {
        try await withTestClient { client in
            let raw = try await post(
                client,
                "/auth/register",
                "{\"email\": \"nul@example.com\u{0}\", \"password\": \"a good password\"}"
            )
            #expect(raw.status == .badRequest && raw.errorCode == "invalid_text")
            let email = TestDatabase.uniqueEmail("nul")
            let escaped = try await post(
                client,
                "/auth/register",
                #"{"email": "\#(email)", "password": "a good\u0000password"}"#
            )
            #expect(escaped.status == .badRequest && escaped.errorCode == "invalid_text")
            let login = try await client.send(.post, "/auth/login", ["email": email, "password": "a good password"])
            #expect(login.status == .unauthorized, "the refused registration created no account")
        }
    }

    @Test("JSON nested deeper than 512 levels is 400 body_too_deep before SQL; 512 levels reach SQL")
    func deepNesting() async throws {
        try await withTestClient { client in
            for route in ["/auth/register", "/auth/login"] {
                let deep = String(repeating: "[", count: 14_500) + String(repeating: "]", count: 14_500)
                let answer = try await post(client, route, #"{"email": \#(deep)}"#)
                #expect(answer.status == .badRequest && answer.errorCode == "body_too_deep", "\(route)")
            }
            let limit = APIResponder.maximumJSONDepth - 1  // the object itself is one level
            let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
            let answer = try await post(
                client,
                "/auth/register",
                #"{"email": \#(atLimit), "password": "a good password"}"#
            )
            #expect(answer.status == .unprocessableContent, "a body at the limit is judged by SQL: \(answer.text)")
        }
        #expect(throws: Never.self) {
            try APIResponder.checkJSON(Array(#"{"a": "[[[[[[", "b": [1, {"c": "\"[["}]}"#.utf8), maximumDepth: 3)
        }
        #expect(throws: APIError.self) { try APIResponder.checkJSON(Array(#"{"a": [[1]]}"#.utf8), maximumDepth: 2) }
        #expect(throws: Never.self) {
            try APIResponder.checkJSON(Array(#"{"a": "\\u0000 is text, \u0030 a zero"}"#.utf8), maximumDepth: 2)
        }
        #expect(throws: APIError.self) { try APIResponder.checkJSON(Array(#"{"a": "x\u0000"}"#.utf8), maximumDepth: 2) }
    }

    @Test("a body of another media type is 415: text/plain or none on a JSON route, JSON on a CSV route")
    func mediaTypes() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "media")
            // An address of this run only: failed logins to a fixed one would add up across
            // runs on one database until the login limit answers 429.
            let body = #"{"email": "\#(TestDatabase.uniqueEmail("media-login"))", "password": "a good password"}"#
            for contentType in ["text/plain", nil, "application/x-www-form-urlencoded"] as [String?] {
                let answer = try await post(client, "/auth/login", body, contentType: contentType)
                #expect(
                    answer.status == .unsupportedMediaType && answer.errorCode == "unsupported_media_type",
                    "\(contentType ?? "none")"
                )
            }
            let charset = try await post(client, "/auth/login", body, contentType: "application/json; charset=utf-8")
            #expect(charset.status == .unauthorized, "a charset parameter is fine")
            let csvAsJSON = try await post(
                client,
                "/import/strong",
                "Date,Exercise Name\n",
                contentType: "application/json",
                token: token
            )
            #expect(csvAsJSON.status == .unsupportedMediaType)
        }
    }

    /// Requests no HTTP client would send, by name (the bytes are made here, not printed).
    static let malformedRequests: [String: String] = [
        "a negative Content-Length": "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "both Content-Length and Transfer-Encoding":
            "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}",
        "a 100 KB header": "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 100_000)
            + "\r\n\r\n",
    ]

    @Test(
        "requests HTTP parsing refuses get a JSON error, not a bare 400",
        arguments: ["a negative Content-Length", "both Content-Length and Transfer-Encoding", "a 100 KB header"]
    )
    func parserErrors(name: String) async throws {
        let request = try #require(Self.malformedRequests[name])
        var configuration = try LiftbaseCore.Configuration(environment: [:])
        configuration.databaseURL = try TestDatabase.url()
        configuration.sqlDirectory = TestDatabase.sqlDirectory
        configuration.port = 0
        var logger = Logger(label: "parser-test")
        logger.logLevel = .critical
        let application = try LiftbaseServer.makeApplication(configuration: configuration, logger: logger)
        try await application.test(.live) { client in
            let port = try #require(client.port)
            let answer = try await RawHTTP.exchange(port: port, request: request)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(80))")
            #expect(answer.lowercased().contains("content-type: application/json"))
            #expect(answer.contains(#""code":"malformed_request""#))
        }
    }

    @Test("timestamps leave in UTC even when the database's TimeZone is elsewhere")
    func timestampsInUTC() async throws {
        let prepare: @Sendable (String) throws -> Void = { url in
            try TestDatabase.migrated(url)
            let connection = try Connection(url)
            defer { connection.close() }
            try connection.execute(
                "do $$ begin execute format('alter database %I set timezone = %L', current_database(), 'Pacific/Kiritimati'); end $$"
            )
        }
        try await TestDatabase.withOwnDatabase(prepare: prepare) { url in
            try await withTestClient(databaseURL: url) { client in
                let token = try await registerUser(client, "tz")
                let me = try await client.send(.get, "/me", token: token)
                let created = try #require(me["user", "created_at"] as? String)
                #expect(created.hasSuffix("Z") || created.hasSuffix("+00:00"), "created_at: \(created)")
            }
        }
    }
}

/// One raw exchange over TCP with a server on loopback: bytes that no HTTP client would send.
enum RawHTTP {
    static func exchange(port: Int, request: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try exchangeBlocking(port: port, request: request) })
            }
        }
    }

    struct SocketError: Error {}

    private static func exchangeBlocking(port: Int, request: String) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SocketError() }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw SocketError() }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { break }  // the server may close once it has answered
            sent += written
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
