import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import Logging
import PQ
import Testing

@testable import LiftbaseHTTP

/// Functions that break the statement's contract, and what the responder makes of them: a
/// defect in SQL is a 500 with a request id and a log line that carries it, never a crash.
@Suite("responder", .serialized, .timeLimit(.minutes(2)))
struct ResponderTests {
    static let probes = [
        Endpoint(.GET, "/probe/no-row", function: "probe_no_row", auth: false, summary: "Answers no row"),
        Endpoint(
            .GET,
            "/probe/bad-headers",
            function: "probe_bad_headers",
            auth: false,
            summary: "Sets headers that are not an object"
        ),
        Endpoint(.GET, "/probe/failure", function: "probe_failure", auth: false, summary: "Raises an unmapped error"),
    ]

    /// Creates the probe functions for the test and drops them afterwards.
    func withProbes(_ body: () async throws -> Void) async throws {
        let admin = try await AsyncConnection.open()
        // One statement at a time: on Citus a SET ROLE inside a multi-statement query (an
        // implicit transaction block) is sent on to the workers, which refuse it.
        for statement in [
            "set role liftbase_owner",
            """
            create function api.probe_no_row(text, jsonb, jsonb) returns setof jsonb language sql
              as 'select null::jsonb where false'
            """,
            """
            create function api.probe_bad_headers(text, jsonb, jsonb) returns jsonb language plpgsql
              as $$ begin perform set_config('liftbase.response_headers', '["x"]', true); return '{}'; end $$
            """,
            """
            create function api.probe_failure(text, jsonb, jsonb) returns jsonb language plpgsql
              as $$ begin execute 'select 1 from app.probe_no_such_table'; return '{}'; end $$
            """,
            """
            grant execute on function api.probe_no_row(text, jsonb, jsonb), api.probe_bad_headers(text, jsonb, jsonb),
              api.probe_failure(text, jsonb, jsonb) to liftbase_api
            """,
            "reset role",
        ] {
            try await admin.execute(statement)
        }
        do {
            try await body()
        } catch {
            _ = try? await admin.execute("drop function api.probe_no_row, api.probe_bad_headers, api.probe_failure")
            throw error
        }
        try await admin.execute("drop function api.probe_no_row, api.probe_bad_headers, api.probe_failure")
    }

    @Test("a function that answers no row is a 500 with a request id, and the server goes on")
    func noRow() async throws {
        try await withProbes {
            try await withTestClient(endpoints: Self.probes) { client in
                let answer = try await client.send(.get, "/probe/no-row")
                #expect(answer.status == .internalServerError)
                #expect(answer["error", "request_id"] as? String != nil)
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            }
        }
    }

    @Test("headers set by SQL that are not an object of strings are a 500, not silently dropped")
    func malformedHeaders() async throws {
        try await withProbes {
            try await withTestClient(endpoints: Self.probes) { client in
                let answer = try await client.send(.get, "/probe/bad-headers")
                #expect(answer.status == .internalServerError)
            }
        }
        #expect(throws: EndpointAnswerError.self) {
            try APIResponder.responseHeaders(#"{"Location": 3}"#, function: "f")
        }
        #expect(try APIResponder.responseHeaders(#"{"Location": "/x"}"#, function: "f")[.location] == "/x")
    }

    @Test("response headers as jsonb prints them are read without Foundation; other JSON through it")
    func responseHeadersRead() throws {
        let printed = #"{"ETag": "\"u1\"", "Location": "/a\/b\\c"}"#
        let pairs = try #require(JSONText.stringObject(printed))
        #expect(pairs.map(\.name) == ["ETag", "Location"] && pairs.map(\.value) == [#""u1""#, #"/a/b\c"#])
        #expect(JSONText.stringObject("{}")?.isEmpty == true)
        for other in [
            #"{"a": 1}"#, #"{"a": "\u0041"}"#, #"{"a": "b"} x"#, "[]", #"{"a":"b",}"#, #"{"a": "b"#, "{\"a\": \"\t\"}",
        ] {
            #expect(JSONText.stringObject(other) == nil, "\(other)")
        }
        let headers = try APIResponder.responseHeaders(printed, function: "f")
        #expect(headers[.eTag] == #""u1""# && headers[.location] == #"/a/b\c"#)
        // An escape the short reader leaves to Foundation's parser.
        #expect(try APIResponder.responseHeaders(#"{"Location":"\u002Fx"}"#, function: "f")[.location] == "/x")
        #expect(throws: EndpointAnswerError.self) { try APIResponder.responseHeaders("[]", function: "f") }
    }

    @Test("every line logged for a request carries its id, the database error's line included")
    func requestIDOnEveryLine() async throws {
        let log = RecordedLog()
        try await withProbes {
            try await withTestClient(endpoints: Self.probes, logger: log.logger()) { client in
                let response = try await client.execute(
                    uri: "/api/v1/probe/failure",
                    method: .get,
                    headers: [.init("X-Request-Id")!: "probe-42"]
                )
                #expect(response.status == .internalServerError)
            }
        }
        let lines = log.lines.filter { $0.message.contains("probe") }
        #expect(lines.contains { $0.level == .error && $0.message.contains("probe_no_such_table") })
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.metadata["request_id"] == "probe-42", "no request id on: \(line.message)")
        }
    }

    @Test("the server's log lines: metadata set on the logger and given with the line, sorted, and the error")
    func logLines() {
        let lines = RecordedLines()
        var logger = Logger(label: "liftbase") { LogLineHandler(label: $0, output: lines.append) }
        logger[metadataKey: "request_id"] = "r-1"
        logger[metadataKey: "request_id"] = "r-2"
        logger.logLevel = .warning
        logger.info("not at this level")
        logger.warning("slow", metadata: ["attempt": "2"])
        logger.log(level: .error, "failed", error: LoggedFailure(), metadata: ["attempt": "3"])
        #expect(lines.values.count == 2)
        #expect(
            lines.values.first?.hasSuffix(" warning liftbase: attempt=2 request_id=r-2 [LiftbaseTests] slow\n") == true
        )
        #expect(
            lines.values.last?.hasSuffix(
                " error liftbase: attempt=3 error.message=refused error.type=LiftbaseTests.LoggedFailure"
                    + " request_id=r-2 [LiftbaseTests] failed\n"
            ) == true
        )
    }

    @Test("an entry that quotes line breaks (a database error's detail, msmtp's output) is still one line")
    func oneLineEntries() {
        let lines = RecordedLines()
        let logger = Logger(label: "liftbase") { LogLineHandler(label: $0, output: lines.append) }
        logger.error(
            "database error: duplicate key\nDETAIL: Key (id)=(1) already exists.\r\n",
            metadata: ["cause": "a\nb"]
        )
        #expect(lines.values.count == 1)
        let line = lines.values.first ?? ""
        #expect(line.filter { $0 == "\n" || $0 == "\r" || $0 == "\r\n" } == "\n" && line.hasSuffix("\n"))
        #expect(
            line.hasSuffix(
                " error liftbase: cause=a\\nb [LiftbaseTests] database error: duplicate key\\nDETAIL: Key (id)=(1) already exists.\\n\n"
            )
        )
    }

    @Test("/metrics shows the outbox by channel, from auth.outbox_metrics()")
    func outboxMetrics() {
        let metrics = HTTPMetrics()
        metrics.record(outbox: [
            ["email", "3", "42.5", "1", "2", "10", "1"], ["webhook", "0", "0", "0", "0", "5", "0"],
        ])
        let text = metrics.emit(pool: .init(size: 1, inUse: 0, waiting: 0), openConnections: 0)
        #expect(text.contains(#"liftbase_outbox_due{kind="email"} 3"#))
        #expect(text.contains(#"liftbase_outbox_oldest_due_seconds{kind="email"} 42.5"#))
        #expect(text.contains(#"liftbase_outbox_dead{kind="email"} 1"#))
        #expect(text.contains(#"liftbase_outbox_delivered{kind="webhook"} 5"#))
    }

    @Test("request ids made by the server: 16 hex digits, 100,000 of them all different")
    func requestIDs() {
        let ids = (0..<100_000).map { _ in APIResponder.requestID(from: Request.probe) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.utf8.count == 16 && UInt64($0, radix: 16) != nil })
    }

    @Test("the metric objects of a route and status are made once and reused")
    func metricsReused() {
        let metrics = HTTPMetrics()
        let key = HTTPMetrics.RequestKey(method: "GET", route: "/me", status: 200)
        #expect(metrics.metrics(for: key).count === metrics.metrics(for: key).count)
        metrics.record(method: "GET", route: "/me", status: 200, duration: .milliseconds(1))
        metrics.record(method: "GET", route: "/me", status: 200, duration: .milliseconds(1))
        #expect(
            metrics.emit(pool: .init(size: 1, inUse: 0, waiting: 0), openConnections: 0)
                .contains(#"liftbase_http_requests_total{method="GET",route="/me",status="200"} 2"#)
        )
    }
}

/// The lines a `LogLineHandler` wrote.
private final class RecordedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var values: [String] { lock.withLock { lines } }
    @Sendable func append(_ line: String) { lock.withLock { lines.append(line) } }
}

struct LoggedFailure: Error, CustomStringConvertible {
    var description: String { "refused" }
}

extension Request {
    /// A GET with no X-Request-Id, for what the responder makes of a bare request.
    fileprivate static var probe: Request {
        Request(
            head: .init(method: .get, scheme: "http", authority: "localhost", path: "/healthz"),
            body: .init(buffer: .init())
        )
    }
}
