import Foundation
import NIOCore
import NIOPosix

/// A bare TCP connection to a test server, to send bytes at a chosen pace and see what the
/// server answers and when it closes: what an HTTP client library would hide.
final class RawConnection: @unchecked Sendable {
    private let channel: any Channel
    private let collector: Collector

    private init(channel: any Channel, collector: Collector) {
        self.channel = channel
        self.collector = collector
    }

    /// Connects; `sending` goes out on the event loop as soon as the connection is made, so
    /// a test on a busy machine still sends it at once (its own task may be slow to resume).
    static func open(port: Int, sending first: String? = nil) async throws -> RawConnection {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in channel.pipeline.addHandler(collector) }
            .connect(host: "127.0.0.1", port: port)
            .flatMap { channel in
                guard let first else { return channel.eventLoop.makeSucceededFuture(channel) }
                return channel.writeAndFlush(ByteBuffer(string: first)).map { channel }
            }
            .get()
        return RawConnection(channel: channel, collector: collector)
    }

    /// A GET of `path` with its whole head at once, kept alive.
    static func get(_ path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n"
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// A GET of `path` with its whole head at once, kept alive.
    func sendGet(_ path: String) async throws {
        try await send(Self.get(path))
    }

    /// A request with a JSON body, kept alive.
    func send(method: String, path: String, json: String, token: String? = nil) async throws {
        var lines = [
            "\(method) \(path) HTTP/1.1", "Host: localhost", "Content-Type: application/json",
            "Content-Length: \(json.utf8.count)",
        ]
        if let token { lines.append("Authorization: Bearer \(token)") }
        try await send(lines.joined(separator: "\r\n") + "\r\n\r\n" + json)
    }

    /// The JSON object after the last head received, when there is one.
    var lastBody: [String: Any]? {
        guard let start = received.range(of: "\r\n\r\n", options: .backwards) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(received[start.upperBound...].utf8))) as? [String: Any]
    }

    /// Everything the server has sent so far.
    var received: String { collector.text }

    var isOpen: Bool { channel.isActive }

    /// Waits until the server has sent `count` complete answers (by their status lines and
    /// Content-Length), or `timeout` passes; answers the status codes seen.
    func waitForAnswers(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [Int] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let statuses = Self.statuses(in: received)
            if statuses.count >= count { return statuses }
            try await Task.sleep(for: .milliseconds(10))
        }
        return Self.statuses(in: received)
    }

    /// Waits until the server closes the connection, or `timeout` passes; true when closed.
    func waitForClose(timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !channel.isActive { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return !channel.isActive
    }

    func close() async {
        try? await channel.close()
    }

    /// The status codes of the complete answers in `text`.
    static func statuses(in text: String) -> [Int] {
        var statuses: [Int] = []
        var rest = Substring(text)
        while let headEnd = rest.range(of: "\r\n\r\n") {
            let head = rest[..<headEnd.lowerBound]
            let lines = head.split(separator: "\r\n")
            guard let statusLine = lines.first, let code = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
            else { break }
            let length =
                lines.dropFirst().compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
            let body = rest[headEnd.upperBound...]
            guard body.utf8.count >= length else { break }
            statuses.append(code)
            rest = Substring(body.utf8.dropFirst(length))
        }
        return statuses
    }

    private final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer

        private let lock = NSLock()
        private var bytes: [UInt8] = []

        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            lock.withLock { bytes += buffer.readableBytesView }
        }
    }
}
