import Foundation
import Testing

/// When something happened, as seen from any thread.
final class Stamp: @unchecked Sendable {
    private let lock = NSLock()
    private var marked: ContinuousClock.Instant?

    func mark() { lock.withLock { marked = ContinuousClock.now } }
    var instant: ContinuousClock.Instant? { lock.withLock { marked } }
}

/// A TCP port no one listens on now: bound to port 0 for the system to choose, then let go.
func freePort() throws -> Int {
    let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(holder) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(holder, $0, length) == 0 && getsockname(holder, $0, &length) == 0
        }
    }
    try #require(bound)
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Waits for `condition`, checking every 20 ms, for `limit` at most (then the test fails).
func waitUntilAsync(within limit: Duration = .seconds(30), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !(await condition()) {
        try #require(ContinuousClock.now < deadline, "the condition never held")
        try await Task.sleep(for: .milliseconds(20))
    }
}
