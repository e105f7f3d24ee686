import Foundation
import HTTPTypes
import HummingbirdTesting
import LiftbaseCore
import Testing

/// The rate limits of the sensitive routes over HTTP, from a real socket: the abuse they stop,
/// their headers, and the address they count (the peer's, or X-Forwarded-For's only behind a
/// trusted proxy). Each test has a database of its own with the default limits.
@Suite("rate limits over HTTP", .timeLimit(.minutes(2)))
struct RateLimitHTTPTests {
    /// A fresh database with the default limits (the suite's databases have generous ones).
    func withDefaultLimits(_ body: (String) async throws -> Void) async throws {
        try await TestDatabase.withFreshMigratedDatabase { url in
            let admin = try await AsyncConnection.open(url)
            try await admin.execute(
                "do $$ begin execute format('alter database %I reset liftbase.rate_limits', current_database()); end $$"
            )
            try await body(url)
        }
    }

    @Test("60 forgot requests for one address queue 3 reset mails; the rest are 429 with RateLimit headers")
    func forgotFlood() async throws {
        try await withDefaultLimits { url in
            let email = TestDatabase.uniqueEmail("flood")
            let statuses = ClosureResult<[Int]>([])
            let limited = ClosureResult<APIAnswer?>(nil)
            try await withTestClient(databaseURL: url, mode: .live) { client in
                _ = try await client.send(.post, "/auth/register", ["email": email, "password": "a good password"])
                // Verified: an address that is not yet gets one reset mail (docs/security.md).
                let users = try await AsyncConnection.open(url)
                try await users.execute("update auth.users set email_verified_at = now()")
                for _ in 0..<60 {
                    let answer = try await client.send(.post, "/auth/password/forgot", ["email": email])
                    statuses.value.append(Int(answer.status.code))
                    if answer.status == .tooManyRequests && limited.value == nil { limited.value = answer }
                }
            }
            // forgot_per_email (3 an hour) is the limit one address reaches first.
            #expect(statuses.value == Array(repeating: 202, count: 3) + Array(repeating: 429, count: 57))
            let outbox = try await AsyncConnection.open(url)
            let mails = try await outbox.query(
                "select count(*) from auth.outbox where recipient = $1 and kind = 'password_reset'",
                [email]
            )
            #expect(mails.scalar == "3")
            let answer = try #require(limited.value)
            #expect(answer.errorCode == "rate_limited")
            // The route's policies, kept in SQL, then this server's budget (docs/security.md).
            let policies = try #require(answer.headers[HTTPField.Name("RateLimit-Policy")!])
            #expect(
                policies.hasPrefix(#""forgot_per_address";q=10;w=3600, "forgot_per_email";q=3;w=3600, "#),
                "\(policies)"
            )
            let state = try #require(answer.headers[HTTPField.Name("RateLimit")!])
            #expect(
                state.prefixMatch(of: #/"forgot_per_address";r=6;t=\d+, "forgot_per_email";r=0;t=\d+, "per_address"/#)
                    != nil,
                "\(state)"
            )
            let retryAfter = try #require(answer.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...3600).contains(retryAfter))
        }
    }

    @Test("60 sign-ups from one address make 10 accounts")
    func signUpFlood() async throws {
        try await withDefaultLimits { url in
            let statuses = ClosureResult<[Int]>([])
            try await withTestClient(databaseURL: url, mode: .live) { client in
                for _ in 0..<60 {
                    let answer = try await client.send(
                        .post,
                        "/auth/register",
                        ["email": TestDatabase.uniqueEmail("many"), "password": "a good password"]
                    )
                    statuses.value.append(Int(answer.status.code))
                }
            }
            #expect(statuses.value == Array(repeating: 201, count: 10) + Array(repeating: 429, count: 50))
            let accounts = try await AsyncConnection.open(url)
            #expect(try await accounts.query("select count(*) from auth.users").scalar == "10")
        }
    }

    @Test("X-Forwarded-For names the client only behind a trusted proxy")
    func forwardedFor() async throws {
        try await withDefaultLimits { url in
            /// 12 forgot requests, each for its own email, each naming its own client.
            func forgot(clients network: String, trusting proxies: [IPNetwork]) async throws -> [Int] {
                let statuses = ClosureResult<[Int]>([])
                try await withTestClient(databaseURL: url, mode: .live, adjust: { $0.trustedProxies = proxies }) {
                    client in
                    for host in 1...12 {
                        let answer = try await client.send(
                            .post,
                            "/auth/password/forgot",
                            ["email": TestDatabase.uniqueEmail("proxied")],
                            headers: [.xForwardedForTest: "\(network).\(host)"]
                        )
                        statuses.value.append(Int(answer.status.code))
                    }
                }
                return statuses.value
            }
            // Behind the trusted proxy (the test's own 127.0.0.1), each client is counted apart.
            #expect(
                try await forgot(clients: "203.0.113", trusting: [IPNetwork("127.0.0.0/8")!])
                    == Array(repeating: 202, count: 12)
            )
            let counted = try await AsyncConnection.open(url)
            #expect(
                try await counted.query("select count(*) from auth.rate_counts where policy = 'forgot_per_address'")
                    .scalar
                    == "12"
            )
            // Trusting no proxy, the header is anyone's: every request is the peer's.
            #expect(
                try await forgot(clients: "198.51.100", trusting: [])
                    == Array(repeating: 202, count: 10) + [429, 429]
            )
        }
    }

    @Test(
        "this server's budget per token: past it a request is 429 rate_limited with the RateLimit fields; another token goes on"
    )
    func tokenBudget() async throws {
        let threeAMinute: (inout Configuration) -> Void = {
            $0.tokenBudget = .init(name: "per_token", quota: 3, window: .seconds(60))
        }
        try await withTestClient(adjust: threeAMinute) { client in
            let token = try await registerUser(client, "budget")
            let other = try await registerUser(client, "budget")
            let answers = try await (0..<4).asyncMap { _ in try await client.send(.get, "/me", token: token) }
            #expect(answers.map(\.status.code) == [200, 200, 200, 429])
            #expect(answers[0].headers[HTTPField.Name("RateLimit-Policy")!]?.contains(#""per_token";q=3;w=60"#) == true)
            #expect(answers[2].headers[HTTPField.Name("RateLimit")!]?.contains(#""per_token";r=0;t="#) == true)
            #expect(answers[3].errorCode == "rate_limited")
            // One interval (60 s / 3) after the first request, less the time the test took.
            #expect(answers[3].headers[.retryAfter].flatMap { Int($0) }.map { (1...20).contains($0) } == true)
            #expect(try await client.send(.get, "/me", token: other).status == .ok)
        }
    }

    @Test(
        "this server's budget per address: past it a request is 429 whatever its token; behind a trusted proxy each client has its own"
    )
    func addressBudget() async throws {
        let fourAnHour: (inout Configuration) -> Void = {
            // An hour, so that no request comes back into the budget however slowly the
            // sign-ups run (on Citus, after a rebalance, they took 40 s).
            $0.addressBudget = .init(name: "per_address", quota: 4, window: .seconds(3600))
            $0.trustedProxies = [IPNetwork("127.0.0.0/8")!]
        }
        // A real socket: the peer's address is the test's own 127.0.0.1.
        try await withTestClient(mode: .live, adjust: fourAnHour) { client in
            let first = try await registerUser(client, "address-budget")
            let second = try await registerUser(client, "address-budget")
            let answers = [
                try await client.send(.get, "/me", token: first),
                try await client.send(.get, "/me", token: second),
                try await client.send(.get, "/me", token: second),
            ]
            #expect(answers.map(\.status.code) == [200, 200, 429], "two sign-ups and two reads spend the four")
            #expect(answers[2].errorCode == "rate_limited")
            #expect(
                answers[2].headers[HTTPField.Name("RateLimit-Policy")!]?.contains(#""per_address";q=4;w=3600"#) == true
            )
            #expect(answers[2].headers[.retryAfter] != nil)
            // Another client behind the trusted proxy is counted apart.
            let proxied = try await client.send(
                .get,
                "/me",
                token: second,
                headers: [.xForwardedForTest: "203.0.113.9"]
            )
            #expect(proxied.status == .ok)
        }
    }

    @Test("a query parameter named client_address is refused: only the server says where a request comes from")
    func clientAddressParameter() async throws {
        try await withTestClient { client in
            let answer = try await client.send(
                .post,
                "/auth/login?client_address=10.0.0.1",
                ["email": "a", "password": "b"]
            )
            #expect(answer.status == .badRequest)
            #expect(answer.errorCode == "invalid_parameter")
        }
    }
}

extension HTTPField.Name {
    fileprivate static let xForwardedForTest = Self("X-Forwarded-For")!
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
