import Foundation
import Logging
import ServiceLifecycle

/// A fixed number of connections, each owned by its own thread for its whole life.
///
/// The pool is a `Service`: its threads start in `run()` and it drains when the service
/// group shuts down gracefully (or the task running it is cancelled). Work is queued as
/// closures (`withConnection`) or as single prepared statements (`queryPrepared`); a worker
/// thread takes a closure, or its share of the statements waiting, makes sure its
/// connection is alive (reconnecting with backoff when it is not) and runs the closure, or
/// sends the statements in one pipeline. Async callers wait on a continuation, so no libpq
/// call ever runs on the cooperative pool or an event loop. A caller that waits longer than
/// `acquireTimeout` gets `PoolError.acquireTimeout`; a caller whose task is cancelled while
/// it waits leaves the queue with `CancellationError`.
public final class ConnectionPool: Service, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var conninfo: String
        public var size: Int
        /// Role to `SET ROLE` to right after connecting (row-level security then applies to
        /// it even when the login is an administrative one). `nil` keeps the login's role.
        public var role: String?
        /// Statements run once on every new connection, after `SET ROLE` (session settings).
        public var sessionSetup: String?
        /// Runs once on every new connection, after the session setup: what a connection
        /// should know about the database it reached (see
        /// `Connection.runsStatementsInTransactionBlocks`).
        public var prepare: (@Sendable (Connection) throws -> Void)?
        public var acquireTimeout: Duration
        public var initialBackoff: Duration
        public var maximumBackoff: Duration
        /// The worker threads are named this, followed by their number.
        public var threadNamePrefix: String

        public init(
            conninfo: String,
            size: Int = 10,
            role: String? = nil,
            sessionSetup: String? = nil,
            prepare: (@Sendable (Connection) throws -> Void)? = nil,
            acquireTimeout: Duration = .seconds(5),
            initialBackoff: Duration = .milliseconds(50),
            maximumBackoff: Duration = .seconds(5),
            threadNamePrefix: String = "pq-worker-"
        ) {
            self.conninfo = conninfo
            self.size = size
            self.role = role
            self.sessionSetup = sessionSetup
            self.prepare = prepare
            self.acquireTimeout = acquireTimeout
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.threadNamePrefix = threadNamePrefix
        }
    }

    public enum PoolError: Error, Sendable, CustomStringConvertible {
        case acquireTimeout
        case shutDown
        case unavailable(PostgresError)

        public var description: String {
            switch self {
            case .acquireTimeout: return "timed out waiting for a database connection"
            case .shutDown: return "the connection pool is shut down"
            case .unavailable(let error): return "database unavailable: \(error.message)"
            }
        }
    }

    public struct Statistics: Sendable {
        public var size: Int
        public var inUse: Int
        public var waiting: Int
        /// Statements sent in a pipeline with others since the pool started.
        public var pipelinedStatements: Int
        /// Read-only statements of pipelines that tried to write and ran again alone.
        public var readsRunAgain: Int

        public init(size: Int, inUse: Int, waiting: Int, pipelinedStatements: Int = 0, readsRunAgain: Int = 0) {
            self.size = size
            self.inUse = inUse
            self.waiting = waiting
            self.pipelinedStatements = pipelinedStatements
            self.readsRunAgain = readsRunAgain
        }
    }

    /// One caller's work. Created before it is queued, so a cancellation that arrives
    /// first can mark it; `run` and `fail` are set once, before it is queued.
    fileprivate final class Job: @unchecked Sendable {
        /// Runs the work and returns what resumes the waiting caller, so the worker can
        /// mark itself free before the caller goes on (statistics are exact when it does).
        var run: (Connection) -> () -> Void = { _ in {} }
        var fail: (any Error) -> Void = { _ in }
        /// Set under the pool's lock when the caller's task was cancelled before queueing.
        var cancelled = false
        /// The work must run on a connection opened for it (a retry after a lost one).
        var needsFreshConnection = false
        /// Set for a job that is one prepared statement, which a worker may send in one
        /// pipeline with others; `answer` then resumes its caller.
        var statement: PreparedCall?
        var answer: (Result<QueryResult, any Error>) -> Void = { _ in }

        /// Whether a worker may send this job in a pipeline with others.
        var isPipelinable: Bool {
            guard let statement, !needsFreshConnection else { return false }
            return statement.parameterBytes <= ConnectionPool.maximumPipelinedParameterBytes
        }
    }

    /// The most statements one worker sends in one pipeline.
    public static let maximumPipeline = 16
    /// A statement with more parameter bytes than this (an import's body) runs alone: it
    /// runs long, and no other request should wait behind it in a pipeline.
    public static let maximumPipelinedParameterBytes = 64 * 1024

    private enum State {
        case created, running, shuttingDown
    }

    public let configuration: Configuration
    private let logger: Logger
    private let condition = NSCondition()
    /// Jobs waiting for a worker, oldest first. Every job waits at most `acquireTimeout`,
    /// so the ones that waited too long are always at the front.
    private var waiting: [(job: Job, deadline: ContinuousClock.Instant)] = []
    private var inUse = 0
    private var pipelinedStatements = 0
    private var readsRunAgain = 0
    /// False once a worker found its connection cannot pipeline (`stopPipelining`).
    private var pipelining = true
    private var state = State.created
    /// Set by `abandonWork`: queued work fails, new work is refused, running work cancelled.
    private var abandoning = false
    /// The workers running work now, and what cancels each one's connection.
    private var busy = Set<Int>()
    private var cancellers: [Int: Canceller] = [:]
    private let stopped = DispatchGroup()
    /// Fails the jobs at the front that waited past their deadline: one repeating timer
    /// for the pool rather than one per waiting job (thousands a second under load).
    private let expiry: DispatchSourceTimer

    /// A pool that takes work at once and starts its connections when `run()` is called.
    public init(_ configuration: Configuration, logger: Logger) {
        precondition(configuration.size > 0, "pool size must be positive")
        self.configuration = configuration
        self.logger = logger
        expiry = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        // A waiting caller learns of its timeout at most a tenth of the timeout late
        // (between 10 and 250 ms).
        let tick = min(max(configuration.acquireTimeout / 10, .milliseconds(10)), .milliseconds(250))
        expiry.schedule(deadline: .now(), repeating: .nanoseconds(Int(tick.nanoseconds)))
        expiry.setEventHandler { [weak self] in self?.failExpiredJobs() }
        expiry.resume()
    }

    deinit { expiry.cancel() }

    /// Starts the worker threads, then waits for a graceful shutdown (or cancellation) and
    /// drains: queued work still runs, new work is refused, every connection is closed.
    public func run() async throws {
        startWorkers()
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Starts the worker threads (once; `run()` calls it).
    public func startWorkers() {
        condition.lock()
        guard state == .created else {
            condition.unlock()
            return
        }
        state = .running
        condition.unlock()
        for index in 0..<configuration.size {
            stopped.enter()
            let thread = Thread { [self] in
                var worker = Worker(pool: self, index: index)
                worker.run()
                stopped.leave()
            }
            thread.name = configuration.threadNamePrefix + String(index)
            thread.start()
        }
    }

    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return Statistics(
            size: configuration.size,
            inUse: inUse,
            waiting: waiting.count,
            pipelinedStatements: pipelinedStatements,
            readsRunAgain: readsRunAgain
        )
    }

    /// Runs `body` on a pooled connection, on that connection's own thread. A task
    /// cancelled while its job waits for a worker leaves the queue and throws
    /// `CancellationError`; once a worker has taken it, the work runs to its end. With
    /// `freshConnection` the worker first replaces its connection by a new one.
    public func withConnection<T: Sendable>(
        freshConnection: Bool = false,
        _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        let job = Job()
        job.needsFreshConnection = freshConnection
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                job.run = { connection in
                    let result = Result { try body(connection) }
                    return { continuation.resume(with: result) }
                }
                job.fail = { error in continuation.resume(throwing: error) }
                enqueue(job)
            }
        } onCancel: {
            cancel(job)
        }
    }

    /// Runs one prepared statement (`Connection.queryPrepared`) on a pooled connection. A
    /// worker that finds several such statements waiting sends its share of them together,
    /// in pipeline mode (`Connection.queryPreparedPipelined`): each is still a transaction
    /// of its own, and the worker and its backend sleep and wake once for all of them
    /// instead of once each. Only `readOnly` statements share a pipeline, and at most one
    /// other statement ends it: a read-only transaction waits on no row lock, so no
    /// statement waits in a pipeline behind one that is blocked (see `take`).
    /// Cancellation and `freshConnection` are as for `withConnection`.
    public func queryPrepared(
        _ sql: String,
        _ parameters: [String?],
        readOnly: Bool = false,
        freshConnection: Bool = false
    ) async throws -> QueryResult {
        let job = Job()
        job.needsFreshConnection = freshConnection
        let statement = PreparedCall(sql, parameters, readOnly: readOnly)
        job.statement = statement
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<QueryResult, any Error>) in
                job.answer = { continuation.resume(with: $0) }
                job.run = { connection in
                    let result = Result { try connection.queryPrepared(statement.sql, statement.parameters) }
                    return { continuation.resume(with: result) }
                }
                job.fail = { error in continuation.resume(throwing: error) }
                enqueue(job)
            }
        } onCancel: {
            cancel(job)
        }
    }

    /// Stops taking work, lets the workers finish what is queued, and closes every
    /// connection; returns when the worker threads have ended.
    public func shutdown() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { [self] in
                syncShutdown()
                done.resume()
            }
        }
    }

    /// `shutdown()` for a caller outside any async context: blocks until the workers end.
    @available(*, noasync, message: "blocks the calling thread: use shutdown() from async code")
    public func syncShutdown() {
        condition.lock()
        let neverStarted = state == .created
        state = .shuttingDown
        let orphans = neverStarted ? waiting.map(\.job) : []
        if neverStarted { waiting.removeAll() }
        condition.broadcast()
        condition.unlock()
        for job in orphans { job.fail(PoolError.shutDown) }
        stopped.wait()
        expiry.cancel()
    }

    /// What a drain that ran out of time does: fails the work still queued and any that
    /// comes (`PoolError.shutDown`), and cancels the statements running (`PQcancel`), again
    /// every 50 ms for up to a second in case a worker was about to send one. A cancelled
    /// statement's transaction is rolled back and its caller gets the server's
    /// `queryCanceled` error. Returns when no worker runs anything, or after that second.
    public func abandonWork() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { [self] in
                condition.lock()
                abandoning = true
                let orphans = waiting.map(\.job)
                waiting.removeAll()
                condition.unlock()
                for job in orphans { job.fail(PoolError.shutDown) }
                for _ in 0..<20 {
                    let running = condition.withLock { busy.compactMap { cancellers[$0] } }
                    if running.isEmpty { break }
                    for cancel in running { cancel() }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                done.resume()
            }
        }
    }

    private func enqueue(_ job: Job) {
        condition.lock()
        if job.cancelled || state == .shuttingDown || abandoning {
            condition.unlock()
            job.fail(job.cancelled ? CancellationError() : PoolError.shutDown)
            return
        }
        waiting.append((job, ContinuousClock.now + configuration.acquireTimeout))
        condition.signal()
        condition.unlock()
    }

    /// A cancelled caller's job leaves the queue if it still waits there.
    private func cancel(_ job: Job) {
        condition.lock()
        job.cancelled = true
        let index = waiting.firstIndex { $0.job === job }
        if let index { waiting.remove(at: index) }
        condition.unlock()
        if index != nil { job.fail(CancellationError()) }
    }

    private func failExpiredJobs() {
        let now = ContinuousClock.now
        condition.lock()
        let expired = waiting.prefix { $0.deadline <= now }.map(\.job)
        waiting.removeFirst(expired.count)
        condition.unlock()
        for job in expired { job.fail(PoolError.acquireTimeout) }
    }

    /// Next work for a worker, or nil when the pool is shutting down and the queue is empty:
    /// one job, or statements to pipeline. Of the statements waiting behind the first, a
    /// worker takes an equal share among the pool's workers, so that under load every worker
    /// gets some and no statement waits behind a long pipeline while a worker is free.
    ///
    /// A pipeline holds read-only statements and at most one other, sent last: a statement
    /// that may write may also wait on a lock (or run long), and nothing may wait behind it.
    /// The others stay queued, in order, for the next worker.
    fileprivate func take(worker: Int) -> [Job]? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && state != .shuttingDown {
            condition.wait()
        }
        guard !waiting.isEmpty else { return nil }
        inUse += 1
        busy.insert(worker)
        let first = waiting.removeFirst().job
        guard first.isPipelinable, pipelining else { return [first] }
        let share = min(Self.maximumPipeline, 1 + waiting.count / configuration.size)
        var reads = first.statement!.readOnly ? [first] : []
        var last = first.statement!.readOnly ? nil : first
        var position = 0
        // A bounded look down the queue: a long queue of writes is not searched for reads.
        var looked = 0
        while reads.count + (last == nil ? 0 : 1) < share, position < waiting.count, looked < 2 * Self.maximumPipeline {
            looked += 1
            let next = waiting[position].job
            guard next.isPipelinable else { break }
            if next.statement!.readOnly {
                reads.append(next)
            } else if last == nil {
                last = next
            } else {
                position += 1
                continue
            }
            waiting.remove(at: position)
        }
        return reads + (last.map { [$0] } ?? [])
    }

    fileprivate func stopPipelining() {
        condition.lock()
        pipelining = false
        condition.unlock()
    }

    fileprivate func finished(worker: Int, pipelined: Int = 0) {
        condition.lock()
        inUse -= 1
        busy.remove(worker)
        pipelinedStatements += pipelined
        condition.unlock()
    }

    /// The worker's connection changed: what cancels its statements now (nil: none open).
    fileprivate func setCanceller(_ canceller: Canceller?, worker: Int) {
        condition.withLock { cancellers[worker] = canceller }
    }

    /// A read-only statement of a pipeline that tried to write (refused, so it changed
    /// nothing) goes back to the front of the queue, to run read-write, alone or at the end
    /// of a pipeline, on the next free worker. It keeps the front's deadline, so the queue
    /// stays in deadline order.
    fileprivate func runAgainReadWrite(_ job: Job) {
        condition.lock()
        if abandoning {
            condition.unlock()
            job.fail(PoolError.shutDown)
            return
        }
        let deadline = waiting.first?.deadline ?? ContinuousClock.now + configuration.acquireTimeout
        job.statement!.readOnly = false
        waiting.insert((job, deadline), at: 0)
        readsRunAgain += 1
        condition.signal()
        condition.unlock()
    }

    /// The state of one worker thread: its connection and its reconnect backoff.
    fileprivate struct Worker {
        let pool: ConnectionPool
        let index: Int
        var connection: Connection?
        var backoff: Duration = .zero
        var nextAttempt = ContinuousClock.now

        init(pool: ConnectionPool, index: Int) {
            self.pool = pool
            self.index = index
        }

        mutating func run() {
            while let jobs = pool.take(worker: index) {
                if jobs.count > 1 {
                    let connection: Connection
                    do {
                        connection = try liveConnection()
                    } catch {
                        pool.finished(worker: index)
                        for job in jobs { job.fail(error) }
                        continue
                    }
                    // A connection that runs each statement in a transaction block of its own
                    // (Citus) cannot pipeline them: these run alone, and the pool makes no
                    // more pipelines.
                    guard connection.runsStatementsInTransactionBlocks else {
                        runPipelined(jobs, on: connection)
                        continue
                    }
                    pool.stopPipelining()
                }
                for (position, job) in jobs.enumerated() {
                    let resume = runAlone(job)
                    // The worker marks itself free before its last caller goes on, so the
                    // statistics are exact when that caller looks.
                    if position == jobs.count - 1 { pool.finished(worker: index) }
                    resume()
                }
            }
            connection?.close()
            pool.setCanceller(nil, worker: index)
        }

        /// Statements in one pipeline. Each caller is resumed as soon as its answer is read,
        /// but the last, which waits until the worker has marked itself free.
        private func runPipelined(_ jobs: [Job], on connection: Connection) {
            let pipelinedBefore = connection.statementsPipelined
            var last: Result<QueryResult, any Error>?
            var lastRunsAgain = false
            connection.queryPreparedPipelined(jobs.map { $0.statement! }) { index, answer in
                if jobs[index].statement!.readOnly, case .failure(let error as PostgresError) = answer,
                    error.sqlstate == .readOnlySQLTransaction
                {
                    // Queued again at once, for another worker: not after this pipeline,
                    // whose last statement may be a write that waits.
                    pool.runAgainReadWrite(jobs[index])
                    if index == jobs.count - 1 { lastRunsAgain = true }
                } else if index == jobs.count - 1 {
                    last = answer
                } else {
                    jobs[index].answer(answer)
                }
            }
            pool.finished(worker: index, pipelined: connection.statementsPipelined - pipelinedBefore)
            if !lastRunsAgain {
                guard let last else { preconditionFailure("queryPreparedPipelined left a statement unanswered") }
                jobs[jobs.count - 1].answer(last)
            }
        }

        /// One job, which may run any number of statements on the connection; returns what
        /// resumes its caller.
        private mutating func runAlone(_ job: Job) -> () -> Void {
            if job.needsFreshConnection {
                connection?.close()
                connection = nil
            }
            do {
                return job.run(try liveConnection())
            } catch {
                return { job.fail(error) }
            }
        }

        /// The worker's connection, checked before every job; reconnects when it died,
        /// waiting out an exponential backoff between failed attempts so a database that
        /// is down is not hammered (jobs meanwhile fail fast as unavailable).
        mutating func liveConnection() throws -> Connection {
            if let connection, connection.isAlive { return connection }
            if connection != nil {
                pool.logger.warning("connection lost; reconnecting", metadata: ["worker": "\(index)"])
                connection?.close()
                connection = nil
            }
            let now = ContinuousClock.now
            if now < nextAttempt, let lastError {
                throw PoolError.unavailable(lastError)
            }
            do {
                let fresh = try openConnectionOutlastingTerminations()
                connection = fresh
                pool.setCanceller(fresh.makeCanceller(), worker: index)
                backoff = .zero
                lastError = nil
                return fresh
            } catch let error as PostgresError {
                backoff =
                    backoff == .zero
                    ? pool.configuration.initialBackoff
                    : min(backoff * 2, pool.configuration.maximumBackoff)
                nextAttempt = now + backoff
                lastError = error
                pool.logger.error("connect failed: \(error)", metadata: ["worker": "\(index)"])
                throw PoolError.unavailable(error)
            }
        }

        var lastError: PostgresError?

        /// A backend terminated while it was being set up (an operator's or a failover's
        /// sweep of backends, perhaps several in a row) says the server is there: open
        /// another at once, a few times, before the worker falls back to its backoff. A
        /// server that is down refuses each try at once, so the extra tries cost nothing.
        private func openConnectionOutlastingTerminations(attempts: Int = 3) throws -> Connection {
            for _ in 1..<attempts {
                do {
                    return try openConnection()
                } catch let error as PostgresError where error.isLostConnection {
                    pool.logger.warning(
                        "a new connection broke or was refused; trying again at once: \(error)",
                        metadata: ["worker": "\(index)"]
                    )
                }
            }
            return try openConnection()
        }

        /// A new connection, switched to the pool's role, with the session setup run.
        private func openConnection() throws -> Connection {
            let fresh = try Connection(pool.configuration.conninfo)
            if let role = pool.configuration.role {
                try fresh.execute("set role \(quoteIdentifier(role))")
            }
            if let setup = pool.configuration.sessionSetup { try fresh.execute(setup) }
            try pool.configuration.prepare?(fresh)
            return fresh
        }
    }
}

/// Quotes an SQL identifier (a role name from configuration).
public func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
