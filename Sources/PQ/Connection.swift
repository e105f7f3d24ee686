import CLibPQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libpq connection. libpq blocks the calling thread, so a `Connection` belongs to one
/// thread at a time: a pool's worker thread, or a command-line program's main thread. Never call
/// it from the cooperative pool or an event loop.
public final class Connection {
    private var handle: OpaquePointer?
    /// Statement text → server-side prepared statement name, valid for this backend only.
    private var preparedNames: [String: String] = [:]
    /// Only grows, so a name is never reused even after an entry is forgotten.
    private var preparedCount = 0
    private let notices = NoticeState()

    /// When true, every `queryPrepared` and `streamRows` statement runs inside its own
    /// BEGIN … COMMIT. On Citus the workers learn a setting only from a `SET LOCAL` made in a
    /// transaction block, and a lone statement's implicit transaction is not one; the
    /// block costs no extra round trip (`queryPrepared` pipelines the three statements).
    public var runsStatementsInTransactionBlocks = false

    /// Connects with a conninfo string or a `postgresql://` URI, parsed by libpq itself so
    /// multiple hosts, `target_session_attrs`, `sslmode` and `.pgpass` work unchanged.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    public init(_ conninfo: String) throws {
        let handle = PQconnectdb(conninfo)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let error = PostgresError.connection(handle)
            PQfinish(handle)
            throw error
        }
        self.handle = handle
        PQsetNoticeReceiver(
            handle,
            { state, result in
                guard let state, let result else { return }
                let severity = PQresultErrorField(result, Int32(Character("V").asciiValue!)).map { String(cString: $0) }
                if severity == "FATAL" || severity == "PANIC" {
                    Unmanaged<NoticeState>.fromOpaque(state).takeUnretainedValue().fatalReceived = true
                }
            },
            Unmanaged.passUnretained(notices).toOpaque()
        )
    }

    deinit { close() }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedNames.removeAll()
    }

    /// True when the connection can take a query. It reads whatever the server has sent
    /// while idle, without blocking: a backend terminated by `pg_terminate_backend` or a
    /// server restart shows up here as a closed socket, before a request is lost on it.
    public var isAlive: Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK, !notices.fatalReceived else { return false }
        // A terminated backend sends a FATAL message, then closes the socket, perhaps a
        // moment later. Read what arrived (never blocks: libpq's socket is non-blocking) and
        // let libpq parse it: a FATAL message to an idle connection reaches the notice
        // receiver, which marks the connection dead.
        guard PQconsumeInput(handle) == 1 else { return false }
        _ = PQisBusy(handle)
        // Ready for a new statement, too: not left in a transaction or in pipeline mode.
        return PQstatus(handle) == CONNECTION_OK && !notices.fatalReceived
            && PQtransactionStatus(handle) == PQTRANS_IDLE && PQpipelineStatus(handle) == PQ_PIPELINE_OFF
    }

    /// What cancels this connection's running statement from another thread (`PQcancel`),
    /// as a pool that stops does; nil when the connection is closed.
    public func makeCanceller() -> Canceller? {
        guard let handle, let cancel = PQgetCancel(handle) else { return nil }
        return Canceller(cancel)
    }

    /// Runs one or more statements with the simple query protocol (no parameters), as
    /// migrations need. Returns the result of the last statement.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    @discardableResult
    public func execute(_ sql: String) throws -> QueryResult {
        let handle = try liveHandle()
        return try consume(PQexec(handle, sql), handle: handle)
    }

    /// Runs one parameterized statement; parameters are sent as text, `nil` as NULL.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws -> QueryResult {
        let handle = try liveHandle()
        let result = withCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0)
        }
        return try consume(result, handle: handle)
    }

    /// Like `query`, through a statement prepared once per connection: for a statement run
    /// over and over, where parsing and planning the same call every time is waste.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    @discardableResult
    public func queryPrepared(_ sql: String, _ parameters: [String?] = []) throws -> QueryResult {
        do {
            return try runPrepared(sql, parameters)
        } catch let error as PostgresError where error.sqlstate == .invalidSQLStatementName {
            // The server forgot its prepared statements (DISCARD ALL, DEALLOCATE, a pooler in
            // between): the statement never ran, so prepare it again and run it once more,
            // unless a transaction of the caller's is open, which the failure has aborted.
            preparedNames.removeAll()
            guard let handle, PQtransactionStatus(handle) == PQTRANS_IDLE else { throw error }
            return try runPrepared(sql, parameters)
        }
    }

    private func runPrepared(_ sql: String, _ parameters: [String?]) throws -> QueryResult {
        let handle = try liveHandle()
        let name = try preparedName(sql, parameterCount: parameters.count, handle: handle)
        if runsStatementsInTransactionBlocks {
            return try pipelinedInTransactionBlock(handle: handle, preparedName: name, parameters: parameters)
        }
        let result = withCStrings(parameters) { values in
            PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
        }
        return try consume(result, handle: handle)
    }

    /// The server-side name of `sql`, prepared on this connection the first time it is asked.
    private func preparedName(_ sql: String, parameterCount: Int, handle: OpaquePointer) throws -> String {
        if let existing = preparedNames[sql] { return existing }
        preparedCount += 1
        let name = "pq_\(preparedCount)"
        _ = try consume(PQprepare(handle, name, sql, Int32(parameterCount), nil), handle: handle)
        preparedNames[sql] = name
        return name
    }

    /// Runs several statements as `queryPrepared` would one after another, in one round trip:
    /// sent together in pipeline mode with a sync point after each, so that each is a
    /// transaction of its own and one's error ends only its own. `answer` is called once for
    /// each statement, with its index, as soon as its answer is known: a caller need not wait
    /// for the statements after its own.
    ///
    /// A statement is answered once its sync point is: its transaction commits there, and an
    /// error the commit raises (a deferred constraint, a deadlock) is its answer. When the
    /// connection breaks or the answers fall out of step, the connection is closed (a pool
    /// opens a new one) and the statements not yet answered get a lost connection. A
    /// statement whose preparation failed, or whose prepared name the server had forgotten
    /// (it never ran then), is answered as `queryPrepared` alone would answer it.
    ///
    /// Each run of `readOnly` statements is sent between a `SET` of the session's default to
    /// read-only and its `SET` back, so each of them is a read-only transaction: one that
    /// tries to write is answered `readOnlySQLTransaction`, having changed nothing.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    public func queryPreparedPipelined(
        _ statements: [PreparedCall],
        answer: (_ index: Int, _ result: Result<QueryResult, any Error>) -> Void
    ) {
        guard statements.count > 1, !runsStatementsInTransactionBlocks, let handle else {
            for (index, statement) in statements.enumerated() { answer(index, runAlone(statement)) }
            return
        }
        // Prepared first: a `SET` fails to prepare only on a broken connection.
        var readOnlyDefaults: (on: String, off: String)?
        if statements.contains(where: \.readOnly) {
            do {
                readOnlyDefaults = (
                    try preparedName("set default_transaction_read_only = on", parameterCount: 0, handle: handle),
                    try preparedName("set default_transaction_read_only = off", parameterCount: 0, handle: handle)
                )
            } catch {
                close()
                for index in statements.indices { answer(index, .failure(Self.lostUnderPipeline)) }
                return
            }
        }
        var sent: [PipelineStep] = []
        var readOnly = false
        for (index, statement) in statements.enumerated() {
            let name: String
            do {
                name = try preparedName(statement.sql, parameterCount: statement.parameters.count, handle: handle)
            } catch {
                answer(index, .failure(error))
                continue
            }
            if let readOnlyDefaults, statement.readOnly != readOnly {
                readOnly = statement.readOnly
                sent.append(PipelineStep(name: readOnly ? readOnlyDefaults.on : readOnlyDefaults.off, statement: nil))
            }
            sent.append(PipelineStep(name: name, statement: index))
        }
        if let readOnlyDefaults, readOnly { sent.append(PipelineStep(name: readOnlyDefaults.off, statement: nil)) }
        var answered = 0
        var forgotten: [Int] = []
        do {
            guard PQenterPipelineMode(handle) == 1 else { throw Self.lostUnderPipeline }
            for step in sent {
                let parameters = step.statement.map { statements[$0].parameters } ?? []
                let queued = withCStrings(parameters) { values in
                    PQsendQueryPrepared(handle, step.name, Int32(values.count), values, nil, nil, 0) == 1
                        && PQpipelineSync(handle) == 1
                }
                guard queued else { throw Self.lostUnderPipeline }
            }
            let statementsSent = sent.filter { $0.statement != nil }.count
            // A statement left alone by the others' failed preparations shared nothing.
            if statementsSent > 1 { statementsPipelined += statementsSent }
            for step in sent {
                let (result, inStep) = readPipelinedAnswer(handle: handle)
                answered += 1
                guard let index = step.statement else {
                    // A `SET` that failed leaves the session's default unknown.
                    guard inStep, case .success = result else { throw Self.lostUnderPipeline }
                    continue
                }
                if case .failure(let error as PostgresError) = result, error.sqlstate == .invalidSQLStatementName {
                    forgotten.append(index)
                } else {
                    answer(index, result)
                }
                guard inStep else { throw Self.lostUnderPipeline }
            }
            guard PQexitPipelineMode(handle) == 1 else { throw Self.lostUnderPipeline }
        } catch {
            close()
            for step in sent.dropFirst(answered) {
                if let index = step.statement { answer(index, .failure(Self.lostUnderPipeline)) }
            }
        }
        for index in forgotten { answer(index, runAlone(statements[index])) }
    }

    /// One message of a pipeline: a statement of the caller's (its index), or a `SET`.
    private struct PipelineStep {
        let name: String
        let statement: Int?
    }

    /// How many statements this connection has sent in pipelines.
    public private(set) var statementsPipelined = 0

    /// What a statement of a pipeline gets when the connection broke under an earlier one,
    /// or under its own before its sync point: whether it ran is unknown, as for a statement
    /// sent alone whose connection broke. The message is fixed: libpq's own may quote the
    /// detail of another statement's error.
    static let lostUnderPipeline = PostgresError(
        sqlstate: .connectionFailure,
        message: "the connection broke under a pipeline of statements"
    )

    /// A statement of a pipeline run on its own, after the others or instead of them.
    private func runAlone(_ statement: PreparedCall) -> Result<QueryResult, any Error> {
        guard handle != nil else { return .failure(Self.lostUnderPipeline) }
        return Result { try queryPrepared(statement.sql, statement.parameters) }
    }

    /// One statement's answer in a pipeline, read up to its sync point, and whether the
    /// connection is still in step there (false: it broke, or answered out of order).
    private func readPipelinedAnswer(handle: OpaquePointer) -> (Result<QueryResult, any Error>, inStep: Bool) {
        var answer = readQueryResults(handle: handle)
        var synced = false
        if PQstatus(handle) == CONNECTION_OK, !notices.fatalReceived, let next = PQgetResult(handle) {
            switch PQresultStatus(next) {
            case PGRES_PIPELINE_SYNC:
                synced = true
            case PGRES_FATAL_ERROR where PQstatus(handle) == CONNECTION_OK:
                // Raised at the sync point, where the transaction commits: the statement's
                // answer after all. A null, then the sync point, follow it.
                answer = .failure(PostgresError(result: next, connection: handle))
                synced = readQueryResults(handle: handle) == nil && Self.isSync(PQgetResult(handle))
            default:
                break
            }
            PQclear(next)
        }
        guard synced, let answer else {
            // A statement that failed committed nothing; one that answered rows may not have.
            if case .failure(let error)? = answer { return (.failure(error), false) }
            return (.failure(Self.lostUnderPipeline), false)
        }
        return (answer, true)
    }

    /// The results of one query of a pipeline, up to the null that ends them: its rows, or
    /// the error the server answered; nil when there were none.
    private func readQueryResults(handle: OpaquePointer) -> Result<QueryResult, any Error>? {
        var answer: Result<QueryResult, any Error>?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                if answer == nil { answer = .success(Self.copy(result)) }
            default:
                answer = .failure(PostgresError(result: result, connection: handle))
            }
        }
        return answer
    }

    private static func isSync(_ result: OpaquePointer?) -> Bool {
        guard let result else { return false }
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_PIPELINE_SYNC
    }

    /// Streams rows into `COPY ... FROM STDIN`. `chunks` yields bytes in the COPY format the
    /// statement names (text or csv); rows may span chunks. Returns the number of rows copied.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    @discardableResult
    public func copyIn<Chunks: Sequence>(_ copyStatement: String, chunks: Chunks) throws -> Int
    where Chunks.Element == [UInt8] {
        var iterator = chunks.makeIterator()
        return try copyIn(copyStatement, reading: { iterator.next() })
    }

    /// Streams rows into `COPY ... FROM STDIN` from `nextChunk`, called until it returns nil.
    /// When it throws (a file that cannot be read to its end), the COPY is aborted, so the
    /// server keeps none of its rows, and the reading error is rethrown.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    @discardableResult
    public func copyIn(_ copyStatement: String, reading nextChunk: () throws -> [UInt8]?) throws -> Int {
        let handle = try liveHandle()
        guard let start = PQexec(handle, copyStatement) else { throw PostgresError.connection(handle) }
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try consume(start, handle: handle)
            throw ClientError.notCopyFromStdin
        }
        PQclear(start)
        var stopReason: (any Error)?
        do {
            while let chunk = try nextChunk() {
                if chunk.isEmpty { continue }
                let sent = chunk.withUnsafeBytes { bytes in
                    PQputCopyData(handle, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
                }
                if sent != 1 {
                    stopReason = PostgresError.connection(handle)
                    break
                }
            }
        } catch {
            stopReason = error
        }
        PQputCopyEnd(handle, stopReason == nil ? nil : "the client stopped sending")
        var copied = 0
        var serverError: PostgresError?
        while let result = PQgetResult(handle) {
            do { copied += try consume(result, handle: handle).affectedRows } catch let error as PostgresError {
                serverError = serverError ?? error
            }
        }
        if let stopReason { throw stopReason }
        if let serverError { throw serverError }
        return copied
    }

    /// BEGIN, the prepared statement and COMMIT, sent together in pipeline mode and read
    /// back in one round trip. A failure skips the rest of the pipeline and leaves the block
    /// aborted, so only then does a ROLLBACK follow, as a second round trip. When the
    /// connection falls out of step (a send fails, the answers do not come as sent), it is
    /// closed: no later statement may read this one's answers, and the pool opens a new one.
    private func pipelinedInTransactionBlock(
        handle: OpaquePointer,
        preparedName: String,
        parameters: [String?]
    ) throws -> QueryResult {
        let answer: QueryResult?
        let failure: PostgresError?
        do {
            (answer, failure) = try sendAndReadBlock(handle: handle, preparedName: preparedName, parameters: parameters)
        } catch {
            close()
            throw error
        }
        if let failure {
            if PQtransactionStatus(handle) == PQTRANS_INERROR {
                _ = try? consume(PQexec(handle, "rollback"), handle: handle)
            }
            throw failure
        }
        guard let answer else {
            let error = PostgresError.connection(handle)
            close()
            throw error
        }
        return answer
    }

    /// The pipeline of `pipelinedInTransactionBlock`: the statement's rows and the first
    /// error the server answered; throws only when the connection itself failed.
    private func sendAndReadBlock(
        handle: OpaquePointer,
        preparedName: String,
        parameters: [String?]
    ) throws -> (QueryResult?, PostgresError?) {
        guard PQenterPipelineMode(handle) == 1 else { throw PostgresError.connection(handle) }
        let sent = withCStrings(parameters) { values in
            PQsendQueryParams(handle, "begin", 0, nil, nil, nil, nil, 0) == 1
                && PQsendQueryPrepared(handle, preparedName, Int32(values.count), values, nil, nil, 0) == 1
                && PQsendQueryParams(handle, "commit", 0, nil, nil, nil, nil, 0) == 1
                && PQpipelineSync(handle) == 1
        }
        guard sent else { throw PostgresError.connection(handle) }
        var answer: QueryResult?
        var failure: PostgresError?
        // Each of the three statements answers its results, then a null.
        for statement in 0..<3 {
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_PIPELINE_ABORTED:
                    break
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                    if statement == 1 { answer = Self.copy(result) }
                default:
                    if failure == nil { failure = PostgresError(result: result, connection: handle) }
                }
            }
        }
        guard let sync = PQgetResult(handle) else { throw PostgresError.connection(handle) }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else { throw PostgresError.connection(handle) }
        return (answer, failure)
    }

    /// Runs `body` inside BEGIN … COMMIT, rolling back when it throws.
    @available(*, noasync, message: "blocks its thread on the server: call it from a thread of its own")
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("begin")
        do {
            let value = try body()
            try execute("commit")
            return value
        } catch {
            if let handle, PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute("rollback") }
            throw error
        }
    }

    /// `inTransaction` when this connection's statements need a block
    /// (`runsStatementsInTransactionBlocks`); else just runs `body`.
    func inTransactionBlockIfNeeded<T>(_ body: () throws -> T) throws -> T {
        guard runsStatementsInTransactionBlocks else { return try body() }
        return try inTransaction(body)
    }

    func liveHandle() throws -> OpaquePointer {
        guard let handle else { throw ClientError.connectionClosed }
        return handle
    }

    /// Copies a result out of libpq and frees it; turns error results into `PostgresError`.
    private func consume(_ result: OpaquePointer?, handle: OpaquePointer) throws -> QueryResult {
        guard let result else { throw PostgresError.connection(handle) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_SINGLE_TUPLE:
            break
        default:
            throw PostgresError(result: result, connection: handle)
        }
        return Self.copy(result)
    }

    /// The rows, columns and affected-row count of a successful result, copied out of libpq.
    private static func copy(_ result: OpaquePointer) -> QueryResult {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(values)
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return QueryResult(columns: columns, rows: rows, affectedRows: affected)
    }
}

/// What the notice receiver learned about the connection.
private final class NoticeState {
    var fatalReceived = false
}

/// Calls `body` with C strings for `values` (NULL for nil) that live for the call only.
func withCStrings<R>(_ values: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = values.map { $0.map { strdup($0) } ?? nil }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}

/// Cancels the statement a connection is running, from any thread: libpq opens a connection
/// of its own to ask the server, so the call blocks for that round trip (never call it from
/// the cooperative pool). A connection that runs nothing is left as it is.
public final class Canceller: @unchecked Sendable {
    private let cancel: OpaquePointer

    init(_ cancel: OpaquePointer) { self.cancel = cancel }
    deinit { PQfreeCancel(cancel) }

    /// Asks the server to cancel; false when the request could not be sent.
    @discardableResult
    public func callAsFunction() -> Bool {
        var message = [CChar](repeating: 0, count: 256)
        return PQcancel(cancel, &message, Int32(message.count)) == 1
    }
}
