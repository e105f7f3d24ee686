import Foundation
import Logging
import PQ
import ServiceLifecycle

/// Lets requests in until the server starts to stop, then turns new ones away (503
/// `shutting_down`) while it waits for those in flight to finish.
final class RequestGate: @unchecked Sendable {
    private let lock = NSLock()
    private var inFlight = 0
    private var draining = false
    private var gaveUp = false

    /// Counts a request in; false once the server drains. A true answer must be matched
    /// by `leave()`.
    func enter() -> Bool {
        lock.withLock {
            guard !draining else { return false }
            inFlight += 1
            return true
        }
    }

    func leave() { lock.withLock { inFlight -= 1 } }

    /// True once the drain timeout passed with requests in flight: their work is being
    /// cancelled, and whatever unavailability they meet is the shutdown's.
    var hasGivenUp: Bool { lock.withLock { gaveUp } }
    func giveUp() { lock.withLock { gaveUp = true } }

    /// Closes the gate and waits until no request is in flight, or `timeout` passes;
    /// answers how many were still in flight.
    func drain(timeout: Duration) async -> Int {
        lock.withLock { draining = true }
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = lock.withLock { inFlight }
            if remaining == 0 || ContinuousClock.now >= deadline { return remaining }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// On SIGTERM (graceful shutdown), drains the gate before the HTTP server stops listening:
/// ServiceGroup stops services in reverse order, so this one runs after the application
/// in the group's list and is stopped first. The server then closes its connections once
/// their answers are written, and the pool closes last.
///
/// When the drain timeout passes with requests in flight, their statements are cancelled
/// and the work still queued for the pool is failed: those requests are answered 503
/// `shutting_down`, their transactions roll back, and the process ends a moment after the
/// timeout rather than when the slowest statement would have ended.
struct DrainService: Service {
    let gate: RequestGate
    let pool: ConnectionPool
    let timeout: Duration
    let logger: Logger
    /// How long the cancelled requests get to write their answers.
    static let answerMargin = Duration.milliseconds(500)

    func run() async throws {
        // Cancellation (not a graceful stop) ends the wait with an error: nothing to drain then.
        guard (try? await gracefulShutdown()) != nil else { return }
        logger.info("shutting down: answering new requests 503 while those in flight finish")
        let unfinished = await gate.drain(timeout: timeout)
        guard unfinished > 0 else { return }
        logger.warning("drain timeout passed with \(unfinished) request(s) in flight: cancelling their statements")
        gate.giveUp()
        await pool.abandonWork()
        let unanswered = await gate.drain(timeout: Self.answerMargin)
        if unanswered > 0 { logger.warning("\(unanswered) request(s) still in flight at exit") }
    }
}
