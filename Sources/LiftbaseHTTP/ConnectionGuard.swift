import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The limits one HTTP connection is held to (docs/operations.md "Limits").
struct ConnectionLimits: Sendable {
    /// From connecting, or from the first byte after an idle pause, to a complete request
    /// head: a client that trickles its headers is closed.
    var headerTimeout: Duration
    /// Between an answer and the first byte of the next request on a kept-alive connection.
    var idleTimeout: Duration
    /// Open connections above which a new one is answered 503 `too_many_connections`.
    var maximumConnections: Int
}

/// How many connections are open, shared by every connection's guard; refusals and
/// timeouts are counted in the metrics.
final class OpenConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private let metrics: HTTPMetrics

    init(metrics: HTTPMetrics) {
        self.metrics = metrics
    }

    /// Counts a new connection; false when it is one more than `maximum`.
    func open(maximum: Int) -> Bool {
        let accepted = lock.withLock {
            count += 1
            return count <= maximum
        }
        if !accepted { metrics.connectionsRefused.increment() }
        return accepted
    }

    func close() { lock.withLock { count -= 1 } }
    func timeOut() { metrics.connectionsTimedOut.increment() }
    var current: Int { lock.withLock { count } }
}

/// Holds one connection to `ConnectionLimits`, and closes it after any answer that says
/// `Connection: close` (a refusal, or a 503 while the server drains).
///
/// It sits after the HTTP decoder, where a request head arrives whole; to time a head from
/// its first byte it puts a small observer of raw bytes at the front of the pipeline. The
/// connection is in one of three phases: waiting for a request (idle timeout), receiving a
/// head (header timeout), or answering (no timeout here: the statement timeout bounds the
/// database's work, and the client's own pace of reading the answer is its business).
///
/// A phase's timeout is a deadline, and one scheduled check per connection enforces it:
/// most requests only move the deadline, which costs a reading of the clock. The check
/// is scheduled again only when it would come too late for the new deadline, or after it
/// ran. (Scheduling and cancelling a timer twice a request cost 4 % of the server's CPU
/// for a cheap request.)
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let refusal =
        #"{"error":{"code":"too_many_connections","message":"The server has too many open connections. Retry later."}}"#

    private enum Phase {
        case waiting, receivingHead, answering
    }

    private let limits: ConnectionLimits
    private let connections: OpenConnections
    private var phase = Phase.receivingHead
    private var counted = false
    private var refused = false
    private var answersPending = 0
    private var closeAfterAnswer = false
    /// When the current phase's time runs out; it does not apply while answering.
    private var deadline = NIODeadline.distantFuture
    /// The scheduled check and when it runs, at or before `deadline`.
    private var check: (task: Scheduled<Void>, due: NIODeadline)?

    init(limits: ConnectionLimits, connections: OpenConnections) {
        self.limits = limits
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let observer = FirstByteObserver(onBytes: { [weak self] in self?.bytesArrived(context: context) })
        try? context.pipeline.syncOperations.addHandler(observer, position: .first)
        if context.channel.isActive { opened(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelCheck()
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelCheck()
        if counted {
            counted = false
            connections.close()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head = part {
            phase = .answering
            answersPending += 1
            if refused {
                refuse(context: context)
                return
            }
        }
        // A refused connection's request goes no further (its body and end included).
        if refused { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headerFields[.connection] == "close" { closeAfterAnswer = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            answersPending -= 1
            if closeAfterAnswer {
                let channel = context.channel
                context.writeAndFlush(data).whenComplete { result in
                    promise?.completeWith(result)
                    channel.close(promise: nil)
                }
                return
            }
            context.write(data, promise: promise)
            if answersPending == 0 {
                phase = .waiting
                arm(limits.idleTimeout, context: context)
            }
        }
    }

    private func opened(context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        refused = !connections.open(maximum: limits.maximumConnections)
        phase = .receivingHead
        arm(limits.headerTimeout, context: context)
    }

    /// Raw bytes arrived: the first ones after an idle pause start the header timeout.
    private func bytesArrived(context: ChannelHandlerContext) {
        guard phase == .waiting else { return }
        phase = .receivingHead
        arm(limits.headerTimeout, context: context)
    }

    private func arm(_ timeout: Duration, context: ChannelHandlerContext) {
        deadline = .now() + .nanoseconds(timeout.nanosecondsClamped)
        if let check, check.due <= deadline { return }
        scheduleCheck(at: deadline, context: context)
    }

    private func scheduleCheck(at due: NIODeadline, context: ChannelHandlerContext) {
        cancelCheck()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [weak self] () -> Void in
            self?.checkDeadline(context: context)
        }
        check = (task, due)
    }

    /// Closes the connection if its phase's time ran out; otherwise checks again at the
    /// deadline (the phase moved it since this check was scheduled). While answering, the
    /// next phase schedules its own check.
    private func checkDeadline(context: ChannelHandlerContext) {
        check = nil
        guard phase != .answering else { return }
        guard deadline <= .now() else {
            scheduleCheck(at: deadline, context: context)
            return
        }
        connections.timeOut()
        context.close(promise: nil)
    }

    private func cancelCheck() {
        check?.task.cancel()
        check = nil
    }

    /// Answers the connection's first request 503 and closes it: a client learns at once
    /// to come back later, rather than waiting in a queue it cannot see.
    private func refuse(context: ChannelHandlerContext) {
        let head = HTTPResponse(
            status: .serviceUnavailable,
            headerFields: [
                .contentType: "application/json", .contentLength: String(Self.refusal.utf8.count),
                .connection: "close", .retryAfter: "1",
            ]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: Self.refusal))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Tells the guard that bytes arrived, before the HTTP decoder holds them back until a
/// head is whole.
private final class FirstByteObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let onBytes: () -> Void

    init(onBytes: @escaping () -> Void) {
        self.onBytes = onBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        onBytes()
        context.fireChannelRead(data)
    }
}
