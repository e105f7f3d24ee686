import Foundation

/// A budget of requests per key, kept in this server's memory: the generic cell rate
/// algorithm (GCRA). Each key holds one instant, the time at which its budget would be whole
/// again; a request moves it one emission interval (window / quota) later and is refused when
/// that would lie more than a window ahead. So a key may spend its whole quota at once, then
/// one request per interval: no counters, no timers, and no database write on a read.
///
/// It is per server (docs/security.md): behind a load balancer each server keeps its own.
/// The sensitive routes have limits of their own, kept in PostgreSQL and shared
/// (sql/functions/auth_rate_limits.sql).
public final class RequestBudget: @unchecked Sendable {
    public struct Policy: Sendable, Equatable, CustomStringConvertible {
        public let name: String
        public let quota: Int
        public let window: Duration

        public init(name: String, quota: Int, window: Duration) {
            self.name = name
            self.quota = quota
            self.window = window
        }

        /// `quota/seconds` (`1200/60`), or nil for `off`; throws on anything else.
        public static func parse(_ text: String, name: String, setting: String) throws -> Policy? {
            if text.lowercased() == "off" { return nil }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let quota = Int(parts[0]), let seconds = Int(parts[1]),
                (1...1_000_000).contains(quota), (1...86_400).contains(seconds)
            else {
                throw ConfigurationError.invalid(
                    "\(setting)=\(text): must be off or quota/seconds, such as 1200/60 (quota 1 to 1000000, 1 to 86400 s)"
                )
            }
            return Policy(name: name, quota: quota, window: .seconds(seconds))
        }

        /// As the RateLimit-Policy header writes it: `"per_token";q=1200;w=60`.
        public var description: String { "\"\(name)\";q=\(quota);w=\(window.components.seconds)" }
    }

    /// What a request was told: whether it may go on, what is left, and when.
    public struct Answer: Sendable, Equatable {
        public let allowed: Bool
        public let remaining: Int
        /// Seconds until the budget is whole again.
        public let reset: Int
        /// Seconds until a refused request would be let through.
        public let retryAfter: Int
    }

    public let policy: Policy
    private let interval: Duration
    private let lock = NSLock()
    private var wholeAgainAt: [String: ContinuousClock.Instant] = [:]
    private var spentSinceSweep = 0

    public init(_ policy: Policy) {
        self.policy = policy
        interval = policy.window / policy.quota
    }

    /// Spends one request of `key`'s budget at `now`.
    public func spend(_ key: String, now: ContinuousClock.Instant = .now) -> Answer {
        lock.withLock {
            sweepNow(now)
            let start = max(wholeAgainAt[key] ?? now, now)
            let next = start + interval
            guard next - now <= policy.window else {
                // Refused: nothing spent. It may go once its next would fit the window again.
                return Answer(
                    allowed: false,
                    remaining: 0,
                    reset: Self.seconds(start - now),
                    retryAfter: max(1, Self.seconds(next - policy.window - now))
                )
            }
            wholeAgainAt[key] = next
            let room = policy.window - (next - now)
            return Answer(
                allowed: true,
                remaining: Int(room / interval),
                reset: Self.seconds(next - now),
                retryAfter: 0
            )
        }
    }

    /// Keys whose budget is whole again hold nothing: every 4,096 requests they go, so the
    /// table holds about the keys of the last window.
    private func sweepNow(_ now: ContinuousClock.Instant) {
        spentSinceSweep += 1
        guard spentSinceSweep >= 4096 else { return }
        spentSinceSweep = 0
        wholeAgainAt = wholeAgainAt.filter { $0.value > now }
    }

    /// How many keys the budget holds now (for tests of the sweep).
    public var keyCount: Int { lock.withLock { wholeAgainAt.count } }

    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
