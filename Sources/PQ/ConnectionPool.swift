import Foundation
import Logging

/// A fixed number of connections, each owned by its own thread for its whole life.
///
/// Work is queued as closures; a worker thread takes one, makes sure its connection is
/// alive (reconnecting with backoff when it is not) and runs the closure on it. Async
/// callers wait on a continuation, so no libpq call ever runs on the cooperative pool or
/// an event loop. A caller that waits longer than `acquireTimeout` gets
/// `PoolError.acquireTimeout` (the HTTP layer answers 503).
public final class ConnectionPool: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var conninfo: String
        public var size: Int
        /// Role to `SET ROLE` to right after connecting, so row-level security applies even
        /// when the login is an administrative one. `nil` keeps the login's own role.
        public var role: String?
        public var acquireTimeout: Duration
        public var initialBackoff: Duration
        public var maximumBackoff: Duration

        public init(
            conninfo: String, size: Int = 10, role: String? = nil,
            acquireTimeout: Duration = .seconds(5),
            initialBackoff: Duration = .milliseconds(50), maximumBackoff: Duration = .seconds(5)
        ) {
            self.conninfo = conninfo
            self.size = size
            self.role = role
            self.acquireTimeout = acquireTimeout
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
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
    }

    fileprivate final class Job {
        /// Runs the work and returns what resumes the waiting caller, so the worker can
        /// mark itself free before the caller goes on (statistics are exact when it does).
        let run: (Connection) -> () -> Void
        let fail: (any Error) -> Void
        init(run: @escaping (Connection) -> () -> Void, fail: @escaping (any Error) -> Void) {
            self.run = run
            self.fail = fail
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private let condition = NSCondition()
    /// Jobs waiting for a worker, oldest first. Every job waits at most `acquireTimeout`,
    /// so the ones that waited too long are always at the front.
    private var waiting: [(job: Job, deadline: ContinuousClock.Instant)] = []
    private var inUse = 0
    private var shuttingDown = false
    private let stopped = DispatchGroup()
    /// Fails the jobs at the front that waited past their deadline: one repeating timer
    /// for the pool rather than one per waiting job (thousands a second under load).
    private let expiry: DispatchSourceTimer

    public init(_ configuration: Configuration, logger: Logger = Logger(label: "liftbase.pool")) {
        precondition(configuration.size > 0, "pool size must be positive")
        self.configuration = configuration
        self.logger = logger
        expiry = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        for index in 0..<configuration.size {
            stopped.enter()
            let thread = Thread { [self] in
                var worker = Worker(pool: self, index: index)
                worker.run()
                stopped.leave()
            }
            thread.name = "liftbase-db-\(index)"
            thread.start()
        }
        // A waiting caller learns of its timeout at most a tenth of the timeout late
        // (between 10 and 250 ms).
        let tick = min(max(configuration.acquireTimeout / 10, .milliseconds(10)), .milliseconds(250))
        expiry.schedule(deadline: .now(), repeating: .nanoseconds(Int(tick.nanoseconds)))
        expiry.setEventHandler { [weak self] in self?.failExpiredJobs() }
        expiry.resume()
    }

    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return Statistics(size: configuration.size, inUse: inUse, waiting: waiting.count)
    }

    /// Runs `body` on a pooled connection, on that connection's own thread.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                run: { connection in
                    let result = Result { try body(connection) }
                    return { continuation.resume(with: result) }
                },
                fail: { error in continuation.resume(throwing: error) }
            )
            enqueue(job)
        }
    }

    /// Stops taking work, lets the workers finish what is queued, and closes every
    /// connection. Blocks until the worker threads have ended.
    public func shutdown() {
        condition.lock()
        shuttingDown = true
        condition.broadcast()
        condition.unlock()
        stopped.wait()
        expiry.cancel()
    }

    private func enqueue(_ job: Job) {
        condition.lock()
        guard !shuttingDown else {
            condition.unlock()
            job.fail(PoolError.shutDown)
            return
        }
        waiting.append((job, ContinuousClock.now + configuration.acquireTimeout))
        condition.signal()
        condition.unlock()
    }

    private func failExpiredJobs() {
        let now = ContinuousClock.now
        condition.lock()
        let expired = waiting.prefix { $0.deadline <= now }.map(\.job)
        waiting.removeFirst(expired.count)
        condition.unlock()
        for job in expired { job.fail(PoolError.acquireTimeout) }
    }

    /// Next job for a worker, or nil when the pool is shutting down and the queue is empty.
    fileprivate func take() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !shuttingDown {
            condition.wait()
        }
        guard !waiting.isEmpty else { return nil }
        inUse += 1
        return waiting.removeFirst().job
    }

    fileprivate func finished() {
        condition.lock()
        inUse -= 1
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
            while let job = pool.take() {
                let resume: () -> Void
                do {
                    resume = job.run(try liveConnection())
                } catch {
                    resume = { job.fail(error) }
                }
                pool.finished()
                resume()
            }
            connection?.close()
        }

        /// The worker's connection, checked before every job; reconnects when it died,
        /// waiting out an exponential backoff between failed attempts so a database that
        /// is down is not hammered (jobs meanwhile fail fast as unavailable).
        mutating func liveConnection() throws -> Connection {
            if let connection, connection.isAlive { return connection }
            if connection != nil {
                pool.logger.warning("database connection lost; reconnecting", metadata: ["worker": "\(index)"])
                connection?.close()
                connection = nil
            }
            let now = ContinuousClock.now
            if now < nextAttempt, let lastError {
                throw PoolError.unavailable(lastError)
            }
            do {
                let fresh = try Connection(pool.configuration.conninfo)
                if let role = pool.configuration.role {
                    try fresh.execute("set role \(quoteIdentifier(role))")
                }
                connection = fresh
                backoff = .zero
                lastError = nil
                return fresh
            } catch let error as PostgresError {
                backoff = backoff == .zero
                    ? pool.configuration.initialBackoff
                    : min(backoff * 2, pool.configuration.maximumBackoff)
                nextAttempt = now + backoff
                lastError = error
                pool.logger.error("database connect failed: \(error.message)", metadata: ["worker": "\(index)"])
                throw PoolError.unavailable(error)
            }
        }

        var lastError: PostgresError?
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
