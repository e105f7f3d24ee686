import Foundation
import Logging
import PQ
import Testing

/// Runs `body` with `pool` running as its service would; afterwards the pool is shut down
/// (cancelling its run) and its threads have ended. The workers start before `body`: tests
/// beside this one may hold the cooperative threads for a while (blocking libpq and process
/// calls), and the pool's run task should not have to wait for one to start them.
func withRunningPool<T: Sendable>(_ pool: ConnectionPool, _ body: () async throws -> T) async throws -> T {
    pool.startWorkers()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await pool.run() }
        defer { group.cancelAll() }
        return try await body()
    }
}

@Suite("connection pool", .timeLimit(.minutes(2)))
struct ConnectionPoolTests {
    /// A pool whose connections carry a unique application_name, so a test can find them.
    func makePool(
        size: Int,
        timeout: Duration = .seconds(5),
        prepare: (@Sendable (Connection) throws -> Void)? = nil
    ) throws -> (ConnectionPool, String) {
        let name = "pooltest_" + TestDatabase.uniqueSuffix()
        let pool = ConnectionPool(
            .init(
                conninfo: try TestDatabase.url() + " application_name=\(name)",
                size: size,
                role: "liftbase_api",
                prepare: prepare,
                acquireTimeout: timeout,
                initialBackoff: .milliseconds(10)
            ),
            logger: Logger(label: "pool-test")
        )
        return (pool, name)
    }

    @Test("pooled connections act as the API role")
    func setsRole() async throws {
        let (pool, _) = try makePool(size: 1)
        try await withRunningPool(pool) {
            let role = try await pool.withConnection { try $0.query("select current_user").scalar }
            #expect(role == "liftbase_api")
        }
    }

    @Test("after its backends are killed the pool reconnects and the next request succeeds")
    func recoversFromTerminatedBackends() async throws {
        let (pool, name) = try makePool(size: 2)
        try await withRunningPool(pool) {
            // Touch both connections.
            async let first = pool.withConnection { try $0.query("select pg_backend_pid(), pg_sleep(0.2)").rows[0][0] }
            async let second = pool.withConnection { try $0.query("select pg_backend_pid(), pg_sleep(0.2)").rows[0][0] }
            let before = Set([try await first, try await second])
            #expect(before.count == 2)

            let admin = try await AsyncConnection.open()
            let killed = try await admin.query(
                "select count(*) filter (where pg_terminate_backend(pid)) from pg_stat_activity where application_name = $1",
                [name]
            )
            #expect(killed.scalar == "2")
            // pg_terminate_backend only signals: wait until the backends are gone.
            for _ in 0..<100 {
                if try await admin.query("select count(*) from pg_stat_activity where application_name = $1", [name])
                    .scalar
                    == "0"
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }

            for _ in 0..<4 {
                let pid = try await pool.withConnection { try $0.query("select pg_backend_pid()").scalar }
                #expect(!before.contains(pid))
            }
        }
    }

    @Test("a connection terminated while it is set up, twice in a row, is opened again and the caller never sees it")
    func outlastsTerminationsDuringSetup() async throws {
        // The setup of each new connection terminates its own backend until a sequence of
        // this test passes 2: the first two connections die as a sweep of backends would
        // kill them, the third lives. The pool connects as the superuser, which may end
        // its own backend.
        let admin = try await AsyncConnection.open()
        let sequence = "setup_kills_" + TestDatabase.uniqueSuffix()
        try await admin.execute("create sequence public.\(sequence)")
        defer { admin.executeAfterwards("drop sequence public.\(sequence)") }
        let pool = ConnectionPool(
            .init(
                conninfo: try TestDatabase.url(),
                size: 1,
                sessionSetup:
                    "select case when nextval('public.\(sequence)') <= 2 then pg_terminate_backend(pg_backend_pid()) end",
                initialBackoff: .seconds(10)
            ),
            logger: Logger(label: "pool-test")
        )
        try await withRunningPool(pool) {
            let answer = try await pool.withConnection { try $0.query("select 'answered'").scalar }
            #expect(answer == "answered")
        }
        #expect(try await admin.query("select last_value from public.\(sequence)").scalar == "3")
    }

    @Test("a caller that waits past the acquire timeout gets acquireTimeout")
    func acquireTimeout() async throws {
        let (pool, _) = try makePool(size: 1, timeout: .milliseconds(100))
        try await withRunningPool(pool) {
            async let busy: Void = pool.withConnection { _ = try $0.query("select pg_sleep(0.6)") }
            try await Task.sleep(for: .milliseconds(50))
            let error = await #expect(throws: ConnectionPool.PoolError.self) {
                try await pool.withConnection { try $0.query("select 1").scalar }
            }
            guard case .acquireTimeout = try #require(error) else {
                Issue.record("expected acquireTimeout, got \(String(describing: error))")
                return
            }
            try await busy
            #expect(try await pool.withConnection { try $0.query("select 1").scalar } == "1")
        }
    }

    @Test("a caller cancelled while it waits leaves the queue without waiting for a connection, and its SQL never runs")
    func cancellationWhileWaiting() async throws {
        let (pool, _) = try makePool(size: 1)
        let marker = "cancelled_" + TestDatabase.uniqueSuffix()
        // The one connection stays busy until the test opens the gate: nothing is timed.
        let gate = DispatchSemaphore(value: 0)
        try await withRunningPool(pool) {
            async let busy: Void = pool.withConnection { _ in gate.wait() }
            try await waitUntil { pool.statistics.inUse == 1 }
            let waiting = Task {
                try await pool.withConnection {
                    try $0.query("select set_config('application_name', $1, false)", [marker]).scalar
                }
            }
            try await waitUntil { pool.statistics.waiting == 1 }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(pool.statistics.inUse == 1, "the cancelled caller did not wait for the busy connection")
            #expect(pool.statistics.waiting == 0)
            gate.signal()
            try await busy
            // The one connection runs the next job: the cancelled one never ran on it.
            let applicationName = try await pool.withConnection {
                try $0.query("select current_setting('application_name')").scalar
            }
            #expect(applicationName != marker)
        }
    }

    @Test("jobs that queue but are served within the timeout never fail")
    func onlyExpiredJobsFail() async throws {
        // One connection, four callers: jobs queue briefly but are all served well within
        // the timeout; the expiry timer must fail none of them.
        let (pool, _) = try makePool(size: 1, timeout: .milliseconds(50))
        try await withRunningPool(pool) {
            let failures = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var failed = 0
                        let until = ContinuousClock.now + .milliseconds(3000)
                        while ContinuousClock.now < until {
                            let asked = ContinuousClock.now
                            do {
                                _ = try await pool.withConnection { try $0.query("select 1").scalar }
                            } catch {
                                // A caller that really waited out the timeout (a loaded machine
                                // running other tests) is fine; one failed sooner was expired
                                // before its deadline.
                                if ContinuousClock.now - asked < .milliseconds(45) { failed += 1 }
                            }
                        }
                        return failed
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(failures == 0)
        }
    }

    @Test("an unreachable database fails fast as unavailable")
    func unavailable() async throws {
        let pool = ConnectionPool(
            .init(conninfo: "host=/nonexistent-liftbase-socket connect_timeout=1", size: 1),
            logger: Logger(label: "pool-test")
        )
        try await withRunningPool(pool) {
            for _ in 0..<2 {
                do {
                    _ = try await pool.withConnection { try $0.query("select 1").scalar }
                    Issue.record("expected the pool to report the database unavailable")
                } catch let error as ConnectionPool.PoolError {
                    guard case .unavailable(let cause) = error else {
                        Issue.record("unexpected \(error)")
                        continue
                    }
                    #expect(cause.isConnectionFailure)
                }
            }
        }
    }

    @Test(
        "statements that wait together share a pipeline (one by one in transaction blocks), each caller gets its own answer or error",
        arguments: [false, true]
    )
    func pipelinedCallers(inTransactionBlocks: Bool) async throws {
        let (pool, _) = try makePool(size: 1, prepare: { $0.runsStatementsInTransactionBlocks = inTransactionBlocks })
        try await withRunningPool(pool) {
            let held = try await HeldWorker(pool)
            let answers = try await withThrowingTaskGroup(of: (Int, Result<String?, any Error>).self) { group in
                for value in 0..<40 {
                    group.addTask {
                        // Every fifth divides by zero.
                        let divisor = value % 5 == 0 ? "0" : "1"
                        do {
                            let result = try await pool.queryPrepared(
                                "select $1::integer / $2::integer",
                                [String(value), divisor],
                                readOnly: true
                            )
                            return (value, .success(result.scalar))
                        } catch {
                            return (value, .failure(error))
                        }
                    }
                }
                try await waitUntil { pool.statistics.waiting == 40 }
                try await held.release()
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            for (value, answer) in answers {
                if value % 5 == 0 {
                    #expect((answer.failure as? PostgresError)?.sqlstate == "22012")
                } else {
                    #expect(try answer.get() == String(value))
                }
            }
            #expect(answers.count == 40)
            let statistics = pool.statistics
            // One worker takes them 16, 16 and 8 at a time.
            #expect(statistics.pipelinedStatements == (inTransactionBlocks ? 0 : 40), "\(statistics)")
            #expect(statistics.inUse == 0 && statistics.waiting == 0)
        }
    }

    @Test("a caller in a pipeline goes on when its own answer is read, not when the pipeline ends")
    func pipelinedCallerGoesOnAtOnce() async throws {
        let (pool, _) = try makePool(size: 1)
        let lockHolder = try await AsyncConnection.open()
        let key = String(Int32.random(in: 1...Int32.max))
        try await lockHolder.query("select pg_advisory_lock($1::bigint)", [key])
        try await withRunningPool(pool) {
            let held = try await HeldWorker(pool)
            let quickAnswered = Latch()
            let quick = Task {
                let answer = try await pool.queryPrepared("select 1", [], readOnly: true).scalar
                quickAnswered.open()
                return answer
            }
            try await waitUntil { pool.statistics.waiting == 1 }
            // Waits, at the end of the same pipeline, for the lock the test holds.
            let slow = Task { try await pool.queryPrepared("select pg_advisory_xact_lock($1::bigint)", [key]) }
            try await waitUntil { pool.statistics.waiting == 2 }
            try await held.release()
            // Answered while the statement after it in its pipeline still waits.
            try await waitUntil { quickAnswered.isOpen }
            try await lockHolder.query("select pg_advisory_unlock($1::bigint)", [key])
            #expect(try await quick.value == "1")
            _ = try await slow.value
            #expect(pool.statistics.pipelinedStatements == 2)
        }
    }

    @Test("a write blocked on a row lock holds up none of the 50 reads queued with it (pool of 3)")
    func blockedWriteHoldsUpNoRead() async throws {
        let (pool, name) = try makePool(size: 3)
        let admin = try await AsyncConnection.open()
        let table = "held_\(TestDatabase.uniqueSuffix())"
        try await admin.execute(
            "create table \(table) (id integer primary key, n integer); insert into \(table) values (1, 0); grant all on \(table) to liftbase_api"
        )
        defer { admin.executeAfterwards("drop table \(table)") }
        let lockHolder = try await AsyncConnection.open()
        try await lockHolder.execute("begin; select from \(table) where id = 1 for update")
        try await withRunningPool(pool) {
            // Whatever the test finds, the write ends before the pool shuts down.
            defer { lockHolder.executeAfterwards("rollback") }
            let held = [try await HeldWorker(pool), try await HeldWorker(pool), try await HeldWorker(pool)]
            let writeAnswered = Latch()
            let write = Task {
                defer { writeAnswered.open() }
                return try await pool.queryPrepared("update \(table) set n = n + 1 where id = $1", ["1"]).affectedRows
            }
            try await waitUntil { pool.statistics.waiting == 1 }
            let answers = Answers()
            for value in 0..<50 {
                Task {
                    let answer = try await pool.queryPrepared("select $1::integer", [String(value)], readOnly: true)
                    answers.add(answer.scalar)
                }
            }
            try await waitUntil { pool.statistics.waiting == 51 }
            for worker in held { try await worker.release() }
            // Every read answers while the write still waits on the lock.
            try await waitUntil { answers.count == 50 }
            #expect(answers.all == Set((0..<50).map { String($0) }))
            // The table is the coordinator's own on Citus too: its lock waits show locally.
            let waiting =
                "select count(*) from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'"
            try await waitUntilAsync { (try? await admin.query(waiting, [name]).scalar) == "1" }
            #expect(!writeAnswered.isOpen)
            #expect(pool.statistics.pipelinedStatements > 0, "the reads shared pipelines")
            try await lockHolder.execute("commit")
            #expect(try await write.value == 1)
        }
    }

    @Test("reads in a pipeline run read-only; one that writes runs again read-write, once; a write ends the pipeline")
    func readsInPipelinesRunReadOnly() async throws {
        let (pool, _) = try makePool(size: 1)
        let admin = try await AsyncConnection.open()
        let table = "written_\(TestDatabase.uniqueSuffix())"
        try await admin.execute("create table \(table) (id integer primary key); grant all on \(table) to liftbase_api")
        defer { admin.executeAfterwards("drop table \(table)") }
        try await withRunningPool(pool) {
            let held = try await HeldWorker(pool)
            let mode = "select current_setting('transaction_read_only')"
            let write = Task { try await pool.queryPrepared(mode, []).scalar }
            try await waitUntil { pool.statistics.waiting == 1 }
            let reads = Task {
                try await withThrowingTaskGroup(of: String?.self) { group in
                    for _ in 0..<4 { group.addTask { try await pool.queryPrepared(mode, [], readOnly: true).scalar } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await waitUntil { pool.statistics.waiting == 5 }
            // Marked as a read, but it writes: refused in the pipeline, then run again.
            let writingRead = Task {
                try await pool.queryPrepared("insert into \(table) values ($1) returning id", ["7"], readOnly: true)
                    .scalar
            }
            try await waitUntil { pool.statistics.waiting == 6 }
            try await held.release()
            #expect(try await reads.value == ["on", "on", "on", "on"])
            #expect(try await write.value == "off")
            #expect(try await writingRead.value == "7")
            #expect(pool.statistics.readsRunAgain == 1)
            #expect(try await admin.query("select count(*) from \(table)").scalar == "1")
            // The session's default is back: a statement alone is read-write.
            #expect(try await pool.queryPrepared(mode, []).scalar == "off")
        }
    }

    @Test("a read that writes, refused in a pipeline ending in a blocked write, runs again on another worker at once")
    func writingReadDoesNotWaitForTheWrite() async throws {
        let (pool, _) = try makePool(size: 2)
        let admin = try await AsyncConnection.open()
        let table = "again_\(TestDatabase.uniqueSuffix())"
        try await admin.execute(
            "create table \(table) (id integer primary key, n integer); insert into \(table) values (1, 0); grant all on \(table) to liftbase_api"
        )
        defer { admin.executeAfterwards("drop table \(table)") }
        let lockHolder = try await AsyncConnection.open()
        try await lockHolder.execute("begin; select from \(table) where id = 1 for update")
        try await withRunningPool(pool) {
            defer { lockHolder.executeAfterwards("rollback") }
            let held = [try await HeldWorker(pool), try await HeldWorker(pool)]
            let write = Task { try await pool.queryPrepared("update \(table) set n = n + 1 where id = $1", ["1"]) }
            try await waitUntil { pool.statistics.waiting == 1 }
            // Marked as a read, but it writes: one pipeline takes it first and the write last.
            let answered = Answers()
            Task {
                let inserted = try await pool.queryPrepared(
                    "insert into \(table) values ($1, 0) returning id",
                    ["2"],
                    readOnly: true
                )
                answered.add(inserted.scalar)
            }
            try await waitUntil { pool.statistics.waiting == 2 }
            // A third waiting statement makes a worker's share two: the pipeline.
            Task { answered.add(try await pool.queryPrepared("select 'read'", [], readOnly: true).scalar) }
            try await waitUntil { pool.statistics.waiting == 3 }
            for worker in held { try await worker.release() }
            try await waitUntil { answered.count == 2 }
            #expect(answered.all == ["2", "read"])
            #expect(pool.statistics.readsRunAgain == 1)
            try await lockHolder.execute("rollback")
            #expect(try await write.value.affectedRows == 1)
            // Counted when the pipeline ends, after its write.
            #expect(pool.statistics.pipelinedStatements == 2)
        }
    }

    @Test("a statement with a large body runs alone, even when others wait")
    func largeStatementsRunAlone() async throws {
        let (pool, _) = try makePool(size: 1)
        try await withRunningPool(pool) {
            let held = try await HeldWorker(pool)
            let body = String(repeating: "x", count: ConnectionPool.maximumPipelinedParameterBytes + 1)
            let lengths = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await pool.queryPrepared("select length($1::text)", [body]).scalar }
                }
                try await waitUntil { pool.statistics.waiting == 6 }
                try await held.release()
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(lengths == Array(repeating: String(body.count), count: 6))
            #expect(pool.statistics.pipelinedStatements == 0)
        }
    }

    @Test("many concurrent callers all get answers and the pool is idle afterwards")
    func concurrentCallers() async throws {
        let (pool, _) = try makePool(size: 3)
        try await withRunningPool(pool) {
            let sum = try await withThrowingTaskGroup(of: Int.self) { group in
                for value in 1...200 {
                    group.addTask {
                        try await pool.withConnection {
                            Int(try $0.query("select $1::integer", [String(value)]).scalar!)!
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(sum == 200 * 201 / 2)
            let statistics = pool.statistics
            #expect(statistics.inUse == 0 && statistics.waiting == 0)
        }
    }
}

/// One of a pool's workers (its only one, or one more of them), held busy until
/// `release()`, so that statements queue behind it however slowly the machine starts their
/// tasks.
final class HeldWorker: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let job: Task<Void, any Error>

    init(_ pool: ConnectionPool) async throws {
        let gate = gate
        let busy = pool.statistics.inUse
        job = Task { try await pool.withConnection { _ in gate.wait() } }
        try await waitUntil { pool.statistics.inUse == busy + 1 }
    }

    func release() async throws {
        gate.signal()
        try await job.value
    }
}

/// Waits for `condition`, checking every 10 ms, for 30 s at most (then the test fails).
func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        try #require(ContinuousClock.now < deadline, "the condition never held")
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Answers collected from tasks on any thread.
final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [String?] = []

    func add(_ answer: String?) { lock.withLock { answers.append(answer) } }
    var count: Int { lock.withLock { answers.count } }
    var all: Set<String?> { lock.withLock { Set(answers) } }
}

/// Opened once, from any thread.
final class Latch: @unchecked Sendable {
    private let lock = NSLock()
    private var opened = false

    func open() { lock.withLock { opened = true } }
    var isOpen: Bool { lock.withLock { opened } }
}
