import LiftbaseCore
import Testing

/// The in-memory budget (GCRA): its quota at once, then one request per interval; a refusal
/// spends nothing and says when to come back; keys are apart; whole budgets leave the table.
@Suite("request budget")
struct RequestBudgetTests {
    let start = ContinuousClock.now

    @Test("a key spends its whole quota at once, then one request per interval")
    func quotaThenInterval() {
        let budget = RequestBudget(.init(name: "per_token", quota: 3, window: .seconds(60)))
        let answers = (0..<4).map { _ in budget.spend("a", now: start) }
        #expect(answers.map(\.allowed) == [true, true, true, false])
        #expect(answers.map(\.remaining) == [2, 1, 0, 0])
        #expect(answers[3].retryAfter == 20, "one interval (60 s / 3) until the next fits")
        #expect(answers[2].reset == 60, "whole again a window after the three")
        #expect(!budget.spend("a", now: start + .seconds(19)).allowed)
        #expect(budget.spend("a", now: start + .seconds(20)).allowed, "the refusals spent nothing")
        #expect(budget.spend("b", now: start).allowed, "another key has its own budget")
    }

    @Test("a key idle for a window has its whole quota again, and leaves the table")
    func replenishAndSweep() {
        let budget = RequestBudget(.init(name: "per_address", quota: 2, window: .seconds(10)))
        #expect(budget.spend("a", now: start).allowed && budget.spend("a", now: start).allowed)
        #expect(budget.spend("a", now: start + .seconds(10)).remaining == 1)
        // 4,096 requests in all: the last, a minute and a half later, sweeps the whole keys.
        for n in 0..<4092 { _ = budget.spend("k\(n)", now: start + .seconds(10)) }
        #expect(budget.keyCount == 4093)
        _ = budget.spend("late", now: start + .seconds(100))
        #expect(budget.keyCount == 1, "only the key spent after the sweep is held")
    }

    @Test("an address counts as itself, an IPv6 address by its /64, as auth.client_address_key counts it in SQL")
    func addressKeys() {
        #expect(ClientAddressResolver.limitKey("198.51.100.7") == "198.51.100.7")
        #expect(ClientAddressResolver.limitKey("::ffff:198.51.100.7") == "198.51.100.7")
        #expect(
            ClientAddressResolver.limitKey("2001:db8:1:2:aaaa::1")
                == ClientAddressResolver.limitKey("2001:db8:1:2::ffff")
        )
        #expect(ClientAddressResolver.limitKey("2001:db8:1:2::1") != ClientAddressResolver.limitKey("2001:db8:1:3::1"))
    }

    @Test("LIFTBASE_RATE_LIMIT_PER_* read as quota/seconds or off; anything else stops the start")
    func settings() throws {
        let configuration = try Configuration(environment: [
            "LIFTBASE_RATE_LIMIT_PER_TOKEN": "100/10", "LIFTBASE_RATE_LIMIT_PER_ADDRESS": "off",
        ])
        #expect(configuration.tokenBudget == .init(name: "per_token", quota: 100, window: .seconds(10)))
        #expect(configuration.addressBudget == nil)
        let defaults = try Configuration(environment: [:])
        #expect(defaults.tokenBudget?.description == #""per_token";q=1200;w=60"#)
        #expect(defaults.addressBudget?.description == #""per_address";q=3000;w=60"#)
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["LIFTBASE_RATE_LIMIT_PER_TOKEN": "100 per minute"])
        }
        #expect(
            error?.description
                == "LIFTBASE_RATE_LIMIT_PER_TOKEN=100 per minute: must be off or quota/seconds, such as 1200/60 (quota 1 to 1000000, 1 to 86400 s)"
        )
    }
}
