import Foundation
import LiftbaseCore
import PQ
import Testing

@Suite("libpq connection")
struct ConnectionTests {
    @Test("PostgresError carries SQLSTATE, message, detail and hint")
    func errorFields() throws {
        let connection = try TestDatabase.admin()
        do {
            try connection.execute(
                "do $$ begin raise exception using errcode = 'LB422', message = 'bad input', detail = '{\"code\":\"x\"}', hint = 'try again'; end $$"
            )
            Issue.record("the statement should have failed")
        } catch let error as PostgresError {
            #expect(error.sqlstate == "LB422")
            #expect(error.message == "bad input")
            #expect(error.detail == #"{"code":"x"}"#)
            #expect(error.hint == "try again")
        }
    }

    @Test("a unique violation reports 23505 with the server's detail")
    func uniqueViolation() throws {
        let connection = try TestDatabase.admin()
        try connection.execute("create temporary table t (id integer primary key)")
        try connection.query("insert into t values ($1)", ["1"])
        let error = try #require(throws: PostgresError.self) {
            try connection.query("insert into t values ($1)", ["1"])
        }
        #expect(error.sqlstate == "23505")
        #expect(error.detail == "Key (id)=(1) already exists.")
    }

    @Test("parameters are sent as text, nil as NULL, and prepared statements are reused")
    func parameters() throws {
        let connection = try TestDatabase.admin()
        let sql = "select $1::text is null, $2::integer + 1, $3::text"
        for round in 0..<3 {
            let result = try connection.queryPrepared(sql, [nil, String(round), "it's \"quoted\""])
            #expect(result.rows == [["t", String(round + 1), "it's \"quoted\""]])
        }
        let prepared = try connection.query("select count(*) from pg_prepared_statements").scalar
        #expect(prepared == "1")
    }

    @Test(
        "a prepared statement the server forgot is prepared again and run once, in or out of transaction blocks",
        arguments: [false, true]
    )
    func forgottenPreparedStatement(inTransactionBlocks: Bool) throws {
        let connection = try TestDatabase.admin()
        connection.runsStatementsInTransactionBlocks = inTransactionBlocks
        try connection.execute("create temporary table runs (n integer)")
        let insert = "insert into runs values ($1) returning n"
        #expect(try connection.queryPrepared(insert, ["1"]).scalar == "1")
        try connection.execute("deallocate all")
        #expect(try connection.queryPrepared(insert, ["2"]).scalar == "2")
        #expect(try connection.queryPrepared(insert, ["3"]).scalar == "3")
        // Each insert ran once: the failed attempt wrote nothing.
        #expect(try connection.query("select string_agg(n::text, ',' order by n) from runs").scalar == "1,2,3")

        // Inside the caller's transaction the failure has aborted it: no second attempt.
        connection.runsStatementsInTransactionBlocks = false
        try connection.execute("deallocate all")
        let aborted = try #require(throws: PostgresError.self) {
            try connection.inTransaction { try connection.queryPrepared(insert, ["4"]) }
        }
        #expect(aborted.sqlstate == "26000")
        #expect(try connection.queryPrepared(insert, ["5"]).scalar == "5")
    }

    @Test(
        "in transaction blocks, a statement runs between BEGIN and COMMIT, and a failure leaves the connection usable"
    )
    func transactionBlocks() throws {
        let connection = try TestDatabase.admin()
        let table = "blocks_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try connection.execute("create table \(table) (id integer primary key)")
        defer { _ = try? connection.execute("drop table \(table)") }
        // A cursor without HOLD can only be declared inside a transaction block.
        let lone = try #require(throws: PostgresError.self) {
            try connection.queryPrepared("declare lone cursor for select 1")
        }
        #expect(lone.sqlstate == "25P01")

        connection.runsStatementsInTransactionBlocks = true
        try connection.queryPrepared("declare in_block cursor for select 1")
        try connection.streamRows("declare streamed cursor for select 1") { _ in }
        try connection.queryPrepared("insert into \(table) values ($1)", ["1"])
        let failed = try #require(throws: PostgresError.self) {
            try connection.queryPrepared("insert into \(table) values ($1)", ["1"])
        }
        #expect(failed.sqlstate == "23505")
        // Rolled back, not left aborted: the next statement runs, and the first insert was committed.
        try connection.queryPrepared("insert into \(table) values ($1)", ["2"])
        let other = try TestDatabase.admin()
        #expect(try other.query("select string_agg(id::text, ',' order by id) from \(table)").scalar == "1,2")
    }

    @Test(
        "statements sent in one pipeline answer in order, each in a transaction of its own, one's error its own",
        arguments: [false, true]
    )
    func pipelinedStatements(inTransactionBlocks: Bool) throws {
        let connection = try TestDatabase.admin()
        connection.runsStatementsInTransactionBlocks = inTransactionBlocks
        let table = "pipelined_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try connection.execute("create table \(table) (id integer primary key)")
        defer { _ = try? connection.execute("drop table \(table)") }
        let insert = "insert into \(table) values ($1) returning id"
        let transaction = "select txid_current()"
        let answers = connection.pipelined([
            PreparedCall(insert, ["1"]),
            PreparedCall(transaction, []),
            PreparedCall(insert, ["1"]),
            PreparedCall("select $1::text is null, $2::integer + 1", [nil, "41"]),
            PreparedCall("select 1 from", []),
            PreparedCall(insert, ["2"]),
            PreparedCall(transaction, []),
        ])
        #expect(answers.count == 7)
        #expect(try answers[0].get().scalar == "1")
        #expect(try answers[3].get().rows == [["t", "42"]])
        #expect(try answers[5].get().scalar == "2")
        // The duplicate fails alone, and so does the statement that cannot be prepared.
        #expect((answers[2].failure as? PostgresError)?.sqlstate == "23505")
        #expect((answers[4].failure as? PostgresError)?.sqlstate == "42601")
        // Each statement is its own transaction: two transaction ids, and both inserts
        // around the failed one were committed.
        #expect(try answers[1].get().scalar != answers[6].get().scalar)
        let other = try TestDatabase.admin()
        #expect(try other.query("select string_agg(id::text, ',' order by id) from \(table)").scalar == "1,2")
        #expect(connection.isAlive)
        #expect(try connection.queryPrepared(insert, ["3"]).scalar == "3")
        // Sent as one pipeline: all but the statement that could not be prepared. In
        // transaction blocks (Citus) each runs alone.
        #expect(connection.statementsPipelined == (inTransactionBlocks ? 0 : 6))
        // One statement left by another's failed preparation is not counted as pipelined.
        let lone = connection.pipelined([PreparedCall(insert, ["4"]), PreparedCall("select 2 from", [])])
        #expect(try lone[0].get().scalar == "4")
        #expect((lone[1].failure as? PostgresError)?.sqlstate == "42601")
        #expect(connection.statementsPipelined == (inTransactionBlocks ? 0 : 6))
    }

    @Test("an error raised when a pipelined statement commits is its own answer, and the pipeline goes on")
    func pipelineCommitError() throws {
        let connection = try TestDatabase.admin()
        let table = "deferred_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        // A deferred unique constraint is checked at commit: after the insert has answered its row.
        try connection.execute(
            "create table \(table) (id integer, constraint \(table)_id unique (id) deferrable initially deferred)"
        )
        defer { _ = try? connection.execute("drop table \(table)") }
        let insert = "insert into \(table) values ($1) returning id"
        try connection.queryPrepared(insert, ["1"])
        let answers = connection.pipelined([
            PreparedCall(insert, ["2"]), PreparedCall(insert, ["1"]), PreparedCall(insert, ["3"]),
        ])
        #expect(try answers[0].get().scalar == "2")
        #expect((answers[1].failure as? PostgresError)?.sqlstate == "23505")
        #expect(try answers[2].get().scalar == "3")
        #expect(connection.isAlive && connection.statementsPipelined == 3)
        #expect(try connection.query("select string_agg(id::text, ',' order by id) from \(table)").scalar == "1,2,3")
    }

    @Test("the statement timeout holds each statement of a pipeline, not the pipeline as a whole")
    func pipelineStatementTimeout() throws {
        let connection = try TestDatabase.admin()
        try connection.execute("set statement_timeout = 400")
        let sleep = "select pg_sleep($1::float8)"
        let short = PreparedCall(sleep, ["0.15"])
        let answers = connection.pipelined([
            short, short, short, short, PreparedCall(sleep, ["2"]), .init("select 6", []),
        ])
        for answer in answers.prefix(4) { #expect(answer.failure == nil) }
        #expect((answers[4].failure as? PostgresError)?.sqlstate == "57014")
        #expect(try answers[5].get().scalar == "6")
    }

    @Test("a pipeline of statements whose prepared names the server forgot runs each of them once")
    func pipelineAfterForgottenStatements() throws {
        let connection = try TestDatabase.admin()
        try connection.execute("create temporary table runs (n integer)")
        let insert = "insert into runs values ($1) returning n"
        #expect(try connection.queryPrepared(insert, ["1"]).scalar == "1")
        try connection.execute("deallocate all")
        let answers = connection.pipelined([PreparedCall(insert, ["2"]), PreparedCall(insert, ["3"])])
        #expect(try answers.map { try $0.get().scalar } == ["2", "3"])
        #expect(try connection.query("select string_agg(n::text, ',' order by n) from runs").scalar == "1,2,3")
    }

    @Test("a backend terminated under a pipeline: what was answered stands, the rest get a lost connection")
    func pipelineOnTerminatedBackend() throws {
        let connection = try TestDatabase.admin()
        let answers = connection.pipelined([
            PreparedCall("select 1", []),
            PreparedCall("select pg_terminate_backend(pg_backend_pid())", []),
            PreparedCall("select 3", []),
        ])
        #expect(try answers[0].get().scalar == "1")
        for lost in answers.dropFirst() {
            let error = try #require(lost.failure as? PostgresError)
            #expect(error.isLostConnection, "\(error)")
        }
        #expect(!connection.isAlive)
    }

    @Test("COPY FROM STDIN streams rows that span chunks")
    func copyIn() throws {
        let connection = try TestDatabase.admin()
        try connection.execute("create temporary table items (id integer, name text)")
        let text = (1...1000).map { "\($0)\titem \($0)\n" }.joined()
        let bytes = Array(text.utf8)
        let chunks = stride(from: 0, to: bytes.count, by: 777).map { Array(bytes[$0..<min($0 + 777, bytes.count)]) }
        let copied = try connection.copyIn("copy items (id, name) from stdin", chunks: chunks)
        #expect(copied == 1000)
        let check = try connection.query("select count(*), sum(id), max(name) from items").rows[0]
        #expect(check == ["1000", "500500", "item 999"])
    }

    @Test("a bad COPY row fails the whole COPY with the server's error")
    func copyInFailure() throws {
        let connection = try TestDatabase.admin()
        try connection.execute("create temporary table numbers (n integer)")
        let error = try #require(throws: PostgresError.self) {
            try connection.copyIn("copy numbers from stdin", chunks: [Array("1\n2\nthree\n".utf8)])
        }
        #expect(error.sqlstate == "22P02")
        #expect(try connection.query("select count(*) from numbers").scalar == "0")
    }

    @Test("a source that fails mid-COPY aborts the COPY: no row is kept and the reading error comes back")
    func copyInSourceFailure() throws {
        struct ReadFailure: Error {}
        let connection = try TestDatabase.admin()
        try connection.execute("create temporary table numbers (n integer)")
        var chunksLeft = [Array("1\n2\n".utf8)]
        #expect(throws: ReadFailure.self) {
            try connection.copyIn(
                "copy numbers from stdin",
                reading: {
                    guard !chunksLeft.isEmpty else { throw ReadFailure() }
                    return chunksLeft.removeFirst()
                }
            )
        }
        #expect(try connection.query("select count(*) from numbers").scalar == "0")
    }

    @Test("a file that cannot be read is an error, not an empty file")
    func fileChunksReadError() throws {
        // A folder opens for reading, and every read of it fails (EISDIR).
        let chunks = try FileChunks(url: URL(fileURLWithPath: NSTemporaryDirectory()))
        #expect(throws: FileChunksError.self) { try chunks.next() }
    }

    @Test("a statement that is not COPY FROM STDIN is a client error, with no made-up SQLSTATE")
    func copyInWrongStatement() throws {
        let connection = try TestDatabase.admin()
        #expect(throws: ClientError.notCopyFromStdin) {
            try connection.copyIn("select 1", chunks: [[UInt8]]())
        }
    }

    @Test("a failed connect is a class 08 error")
    func connectFailure() throws {
        let error = try #require(throws: PostgresError.self) {
            _ = try Connection("host=/nonexistent-liftbase-socket connect_timeout=1")
        }
        #expect(error.isConnectionFailure)
    }
}

extension Result {
    /// The error of a failed result, nil for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension Connection {
    /// `queryPreparedPipelined`'s answers in the statements' order; records an issue for a
    /// statement answered twice or never.
    func pipelined(_ statements: [PreparedCall]) -> [Result<QueryResult, any Error>] {
        var answers = [Result<QueryResult, any Error>?](repeating: nil, count: statements.count)
        queryPreparedPipelined(statements) { index, answer in
            if answers[index] != nil { Issue.record("statement \(index) was answered twice") }
            answers[index] = answer
        }
        return answers.enumerated().map { index, answer in
            if answer == nil { Issue.record("statement \(index) was never answered") }
            return answer ?? .failure(ClientError.connectionClosed)
        }
    }
}
