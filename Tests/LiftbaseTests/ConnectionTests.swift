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
