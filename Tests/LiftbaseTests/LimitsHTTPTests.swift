import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import Logging
import PQ
import ServiceLifecycle
import Testing

@testable import LiftbaseHTTP

/// The server's limits (docs/operations.md "Limits"): slow, idle and surplus clients, the
/// statement timeout, reads that survive a lost connection, and the drain on SIGTERM.
@Suite("limits")
struct LimitsHTTPTests {
    static var entry: [String: Any] {
        [
            "name": "Dinner", "source": "manual", "entry_date": "2026-03-02",
            "calories": 800, "protein_g": 50, "carbs_g": 80, "fat_g": 30,
        ]
    }

    // The timeouts below leave the test room on a loaded machine (the whole suite runs in
    // parallel on two cores): a prompt client has a second for its head, not milliseconds.

    @Test("a client that trickles its request head is closed at the header timeout; a prompt one is answered")
    func headerTimeout() async throws {
        let limits: (inout LiftbaseCore.Configuration) -> Void = { $0.headerTimeout = .seconds(1) }
        try await withLiveServer(adjust: limits) { port in
            let prompt = try await RawConnection.open(port: port, sending: RawConnection.get("/healthz"))
            #expect(try await prompt.waitForAnswers(1) == [200])

            let slow = try await RawConnection.open(port: port, sending: "GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
            // One more header line every 100 ms for 10 s: the head is never whole in time.
            let started = ContinuousClock.now
            for index in 0..<100 where slow.isOpen {
                try? await slow.send("X-Slow-\(index): 1\r\n")
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await slow.waitForClose(timeout: .seconds(5)))
            #expect(ContinuousClock.now - started < .seconds(8), "closed long before the head could be whole")
            #expect(slow.received.isEmpty)
            await prompt.close()
        }
    }

    @Test("a kept-alive connection may idle past the header timeout, up to the idle timeout, then is closed")
    func idleTimeout() async throws {
        let limits: (inout LiftbaseCore.Configuration) -> Void = {
            $0.headerTimeout = .seconds(1)
            $0.idleTimeout = .seconds(5)
        }
        try await withLiveServer(adjust: limits) { port in
            // The idle time is counted from just before each request is sent: the server's
            // answer, where its idle timeout starts, can only come later. (Counted from when
            // the test saw the answer, a loaded machine that woke the test seconds late made
            // a close on time look early.)
            var idleFrom = ContinuousClock.now
            let connection = try await RawConnection.open(port: port, sending: RawConnection.get("/healthz"))
            #expect(try await connection.waitForAnswers(1) == [200])
            try await Task.sleep(for: .seconds(2))
            // Idle twice the header timeout: still open (unless the machine slept past the idle one).
            if ContinuousClock.now - idleFrom < .seconds(4) {
                #expect(connection.isOpen, "idle, not slow: the header timeout does not apply")
                idleFrom = ContinuousClock.now
                try await connection.sendGet("/healthz")
                #expect(try await connection.waitForAnswers(2) == [200, 200])
            }
            // Closed for idling, at the idle timeout (5 s) from the last answer: well past the
            // header timeout (1 s). (The margin is for two clocks read on two sides.)
            #expect(try await connection.waitForClose(timeout: .seconds(15)))
            #expect(ContinuousClock.now - idleFrom > .milliseconds(4_500))
        }
    }

    @Test("above the maximum of open connections, a new one is answered 503 too_many_connections and closed")
    func maximumConnections() async throws {
        let limits: (inout LiftbaseCore.Configuration) -> Void = { $0.maximumConnections = 2 }
        try await withLiveServer(adjust: limits) { port in
            let first = try await RawConnection.open(port: port, sending: RawConnection.get("/healthz"))
            #expect(try await first.waitForAnswers(1) == [200])
            let second = try await RawConnection.open(port: port, sending: RawConnection.get("/healthz"))
            #expect(try await second.waitForAnswers(1) == [200])

            let third = try await RawConnection.open(port: port, sending: RawConnection.get("/healthz"))
            #expect(try await third.waitForAnswers(1) == [503])
            #expect(third.received.contains(#""code":"too_many_connections""#))
            #expect(third.received.lowercased().contains("connection: close"))
            #expect(try await third.waitForClose(timeout: .seconds(5)))

            // Once one closes, a new connection is served again (the server counts the close
            // when it sees it: a few tries).
            await second.close()
            var served = false
            for _ in 0..<100 where !served {
                let next = try await RawConnection.open(port: port, sending: RawConnection.get("/metrics"))
                let statuses = try await next.waitForAnswers(1)
                served = statuses == [200]
                if served {
                    // The third connection, and any of these tries made before the close was seen.
                    #expect(next.received.contains("liftbase_http_connections_refused_total "))
                    #expect(!next.received.contains("liftbase_http_connections_refused_total 0"))
                }
                await next.close()
                if !served { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(served)
            await first.close()
        }
    }

    @Test("a request whose SQL runs past the statement timeout is answered 503 request_timeout and writes nothing")
    func statementTimeout() async throws {
        let limits: (inout LiftbaseCore.Configuration) -> Void = { $0.statementTimeout = .milliseconds(500) }
        // Registered on a server without the short limit: on a loaded cluster a registration
        // may itself take longer than 500 ms.
        let registered = ClosureResult<String?>(nil)
        try await withTestClient { client in registered.value = try await registerUser(client, "timeout") }
        let token = try #require(registered.value)
        try await withTestClient(adjust: limits) { client in
            let admin = try await AsyncConnection.open()
            // Hold the user's change counter: the diary write waits on it past the timeout.
            try await admin.execute("begin")
            try await lockChangeCounter(of: token, on: admin)
            let answer = try await client.send(.post, "/nutrition/entries", Self.entry, token: token)
            try await admin.execute("rollback")
            #expect(answer.status == .serviceUnavailable)
            #expect(answer["error", "code"] as? String == "request_timeout")
            let entries = try await client.send(.get, "/nutrition/entries?date=2026-03-02", token: token)
            #expect((entries["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("a read whose backend is terminated under it runs again on a new connection; a write is answered 503")
    func lostConnection() async throws {
        try await TestDatabase.withFreshMigratedDatabase { url in
            let application = "liftbase_lost_" + TestDatabase.uniqueSuffix()
            try await withTestClient(poolSize: 2, databaseURL: url + " application_name=\(application)") { client in
                let token = try await registerUser(client, "lost")
                // Two connections: one holds the lock, the other watches (pg_stat_activity is
                // read once per transaction).
                let locker = try await AsyncConnection.open(url)
                let admin = try await AsyncConnection.open(url)
                // Every request authenticates through auth.sessions: locked, it holds a
                // request in flight until its backend is terminated.
                for (method, path) in [(HTTPRequest.Method.get, "/me"), (.post, "/nutrition/entries")] {
                    try await locker.execute("begin; lock table auth.sessions in access exclusive mode")
                    async let answer = client.send(method, path, method == .post ? Self.entry : nil, token: token)
                    try await terminateBlockedBackend(application: application, on: admin)
                    try await locker.execute("commit")
                    let status = try await answer.status
                    if method == .get {
                        #expect(status == .ok, "the read ran again")
                    } else {
                        #expect(status == .serviceUnavailable, "a write is not run twice")
                    }
                }
                let entries = try await client.send(.get, "/nutrition/entries?date=2026-03-02", token: token)
                #expect((entries["items"] as? [Any])?.isEmpty == true)
            }
        }
    }

    /// A sweep of terminations, as an operator or a failover runs, may come again before a
    /// read's new connection has answered. Here every read in flight is lost in each sweep:
    /// `auth.sessions` is locked, so every request waits on it with its backend busy, and
    /// the sweep terminates all of the pool's backends, then the next sweep does it again
    /// to the tries that followed. After one sweep fewer than a read's tries, the lock is
    /// released and every read answers.
    @Test("reads under load outlast sweeps that terminate every backend of the pool, one fewer than their tries")
    func readsSurviveTerminations() async throws {
        let sweeps = APIResponder.lostConnectionAttempts - 1
        try #require(sweeps >= 2, "a read outlasts sweep after sweep")
        let poolSize = 3
        try await TestDatabase.withFreshMigratedDatabase { url in
            let application = "liftbase_storm_" + TestDatabase.uniqueSuffix()
            // A request waits in the pool's queue while the others wait on the lock: give it
            // longer than a sweep may take on a loaded machine.
            try await withTestClient(
                poolSize: poolSize,
                databaseURL: url + " application_name=\(application)",
                adjust: { $0.poolAcquireTimeout = .seconds(60) }
            ) { client in
                let token = try await registerUser(client, "storm")
                let locker = try await AsyncConnection.open(url)
                let admin = try await AsyncConnection.open(url)
                let swept = SharedCount()
                var terminated = 0
                // Each answer as its status and error code ("503 database_unavailable"), so a
                // failure says which way the request was lost.
                let statuses = try await withThrowingTaskGroup(of: [String].self) { group in
                    try await locker.execute("begin; lock table auth.sessions in access exclusive mode")
                    // One reader more than the pool has connections: a request always waits.
                    for _ in 0...poolSize {
                        group.addTask {
                            var statuses: [String] = []
                            while swept.value == 0 && !Task.isCancelled {
                                let answer = try await client.send(.get, "/me", token: token)
                                let code = answer.errorCode.map { " " + $0 } ?? ""
                                statuses.append("\(answer.status.code)\(code)")
                            }
                            return statuses
                        }
                    }
                    do {
                        for _ in 0..<sweeps {
                            try await waitUntilWaitingOnLock(backends: poolSize, application: application, on: admin)
                            // Waits (10 s at most) until each backend is gone: the next sweep
                            // must not count a dying backend as a try waiting on the lock.
                            let ended = try await admin.query(
                                """
                                select count(*) filter (where pg_terminate_backend(pid, 10000))
                                  from pg_stat_activity where application_name = $1
                                """,
                                [application]
                            ).scalar
                            terminated += Int(ended ?? "") ?? 0
                        }
                        // The tries after the last sweep wait on the lock too; then it goes.
                        try await waitUntilWaitingOnLock(backends: poolSize, application: application, on: admin)
                        try await locker.execute("commit")
                    } catch {
                        // The readers stop, and their requests are let through, before the failure.
                        _ = try? await locker.execute("rollback")
                        swept.increment()
                        throw error
                    }
                    swept.increment()
                    return try await group.reduce(into: [String]()) { $0 += $1 }
                }
                #expect(terminated == sweeps * poolSize, "each sweep ended every connection of the pool")
                #expect(Set(statuses) == ["200"])
            }
        }
    }

    @Test("the drain: a request in flight finishes, a new one is answered 503 shutting_down, then the server stops")
    func drain() async throws {
        let application = "liftbase_drain_" + TestDatabase.uniqueSuffix()
        let server = try await LiveServer.start(applicationName: application)
        let port = server.port

        // Registered beforehand, through a test client: on a loaded cluster a registration
        // may take longer than a raw connection's wait for an answer.
        let registered = ClosureResult<String?>(nil)
        try await withTestClient { client in registered.value = try await registerUser(client, "drain") }
        let token = try #require(registered.value)

        let locker = try await AsyncConnection.open()
        let admin = try await AsyncConnection.open()
        try await locker.execute("begin")
        try await lockChangeCounter(of: token, on: locker)
        let inFlight = try await RawConnection.open(port: port)
        let body = String(decoding: try JSONSerialization.data(withJSONObject: Self.entry), as: UTF8.self)
        try await inFlight.send(method: "POST", path: apiBasePath + "/nutrition/entries", json: body, token: token)
        try await TestDatabase.waitForLockWait(application: application, on: admin)

        await server.group.triggerGracefulShutdown()
        // Once the drain has begun (at once on a quiet machine), a new request gets 503.
        var late: RawConnection?
        for _ in 0..<100 {
            let attempt = try await RawConnection.open(port: port, sending: RawConnection.get("/healthz"))
            if try await attempt.waitForAnswers(1) == [503] {
                late = attempt
                break
            }
            await attempt.close()
            try await Task.sleep(for: .milliseconds(50))
        }
        let refused = try #require(late)
        #expect(refused.received.contains(#""code":"shutting_down""#))
        #expect(try await refused.waitForClose(timeout: .seconds(5)))
        #expect(inFlight.received.isEmpty, "the request in flight is still waiting")

        try await locker.execute("rollback")
        #expect(try await inFlight.waitForAnswers(1) == [201], "the request in flight finished")
        try await server.running.value
        await #expect(throws: (any Error).self, "the server no longer listens") {
            _ = try await RawConnection.open(port: port)
        }
    }
    @Test(
        "past the drain timeout, a blocked request is cancelled: 503 shutting_down, nothing written, the process ends within 2 s"
    )
    func drainTimeoutCancels() async throws {
        // `liftbase serve` itself, a process of its own: its shutdown never waits on this
        // test process's threads, which other tests keep busy.
        let application = "liftbase_cancel_" + TestDatabase.uniqueSuffix()
        let port = try freePort()
        let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/liftbase")
        let server = Process()
        server.executableURL = binary
        server.arguments = [
            "serve", "--port", String(port), "--pool-size", "2", "--sql-dir", TestDatabase.sqlDirectory,
        ]
        server.environment = ProcessInfo.processInfo.environment.merging([
            "DATABASE_URL": try TestDatabase.url() + " application_name=\(application)",
            "LIFTBASE_DRAIN_TIMEOUT_MS": "1000", "LOG_LEVEL": "error",
        ]) { $1 }
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        let ended = Stamp()
        server.terminationHandler = { _ in ended.mark() }
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        // A new process on a machine the rest of the suite keeps busy (on Citus it once took
        // over 30 s to answer): the test is about its end, not its start.
        try await waitUntilAsync(within: .seconds(120)) {
            guard let probe = try? await RawConnection.open(port: port, sending: RawConnection.get("/healthz")) else {
                return false
            }
            let answers = try? await probe.waitForAnswers(1)
            await probe.close()
            return answers == [200]
        }

        let registered = ClosureResult<String?>(nil)
        try await withTestClient { client in registered.value = try await registerUser(client, "cancel") }
        let token = try #require(registered.value)
        let locker = try await AsyncConnection.open()
        let admin = try await AsyncConnection.open()
        defer { locker.executeAfterwards("rollback") }
        try await locker.execute("begin")
        try await lockChangeCounter(of: token, on: locker)
        let inFlight = try await RawConnection.open(port: port)
        let body = String(decoding: try JSONSerialization.data(withJSONObject: Self.entry), as: UTF8.self)
        try await inFlight.send(method: "POST", path: apiBasePath + "/nutrition/entries", json: body, token: token)
        try await TestDatabase.waitForLockWait(application: application, on: admin)

        let stopping = ContinuousClock.now
        kill(server.processIdentifier, SIGTERM)
        try await waitUntilAsync { ended.instant != nil }
        let stopped = try #require(ended.instant) - stopping
        #expect(stopped < .seconds(2), "the server ended \(stopped) after SIGTERM, the lock still held")
        #expect(server.terminationStatus == 0)
        #expect(try await inFlight.waitForAnswers(1) == [503])
        #expect(inFlight.received.contains(#""code":"shutting_down""#))
        try await locker.execute("rollback")
        let entries = try await admin.query(
            """
            select count(*) from app.food_entries as e join auth.sessions as s on s.user_id = e.user_id
             where s.token_hash = sha256(convert_to($1, 'UTF8'))
            """,
            [token]
        ).scalar
        #expect(entries == "0", "the cancelled write left nothing")
    }
}

/// A server listening on a port the system chose, run as `liftbase serve` runs it (the
/// service group with the drain), for tests that speak raw TCP.
private struct LiveServer {
    let group: ServiceGroup
    let running: Task<Void, any Error>
    let port: Int

    static func start(
        applicationName: String? = nil,
        adjust: (inout LiftbaseCore.Configuration) -> Void = { _ in }
    ) async throws -> LiveServer {
        var configuration = try LiftbaseCore.Configuration(environment: [:])
        configuration.databaseURL = try TestDatabase.url() + (applicationName.map { " application_name=\($0)" } ?? "")
        configuration.sqlDirectory = TestDatabase.sqlDirectory
        configuration.poolSize = 2
        configuration.port = 0
        adjust(&configuration)
        var logger = Logger(label: "liftbase-test")
        logger.logLevel = .warning
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let group = try LiftbaseServer.makeServiceGroup(configuration: configuration, logger: logger) { port in
            portSink.yield(port)
        }
        let running = Task { try await group.run() }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else {
            running.cancel()
            throw CancellationError()
        }
        return LiveServer(group: group, running: running, port: port)
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }
}

/// Runs `body` with the port of a `LiveServer` configured by `adjust`, and stops it after.
private func withLiveServer(
    adjust: (inout LiftbaseCore.Configuration) -> Void,
    _ body: (Int) async throws -> Void
) async throws {
    let server = try await LiveServer.start(adjust: adjust)
    do {
        try await body(server.port)
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
}

/// Waits until `backends` of the application's backends wait on a lock (30 s at most).
private func waitUntilWaitingOnLock(backends: Int, application: String, on admin: AsyncConnection) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while try await admin.query(
        "select count(*) from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
        [application]
    ).scalar != String(backends) {
        try #require(ContinuousClock.now < deadline, "\(backends) requests of the pool wait on the lock")
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// A count shared by the tasks of the storm test.
private final class SharedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// Row-locks the change counter of the token's user in `admin`'s open transaction: that
/// user's next write waits for it.
private func lockChangeCounter(of token: String, on admin: AsyncConnection) async throws {
    try await admin.query(
        """
        insert into app.sync_state as s (user_id, last_seq)
        select t.user_id, 0 from auth.sessions as t where t.token_hash = sha256(convert_to($1, 'UTF8'))
        on conflict (user_id) do update set last_seq = s.last_seq
        """,
        [token]
    )
}

/// Terminates the backend of `application` that waits on a lock, once there is one.
private func terminateBlockedBackend(application: String, on admin: AsyncConnection) async throws {
    try await TestDatabase.waitForLockWait(application: application, on: admin)
    try await admin.query(
        """
        select pg_terminate_backend(pid) from pg_stat_activity
         where application_name = $1 and wait_event_type = 'Lock'
        """,
        [application]
    )
}
