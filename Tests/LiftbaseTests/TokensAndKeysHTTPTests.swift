import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Refresh tokens, personal API keys and the security log over HTTP: what the statement of
/// each route adds to the SQL rules (sql/tests/15_tokens_keys_and_log.sql tests those) — a
/// read-only key refused on every method but GET before anything runs, and the client's
/// address and User-Agent reaching the log.
@Suite("refresh tokens, API keys and the security log over HTTP", .timeLimit(.minutes(2)))
struct TokensAndKeysHTTPTests {
    @Test("a refresh token rotates; one used twice ends its sign-in, and the log says who used it")
    func refreshRotation() async throws {
        try await withTestClient { client in
            let credentials: [String: Any] = [
                "email": TestDatabase.uniqueEmail("refresh"), "password": "a good password", "refreshable": true,
            ]
            let registered = try await client.send(.post, "/auth/register", credentials)
            #expect(registered.status == .created)
            let first = try #require(registered["refresh_token"] as? String)
            #expect(registered["expires_in"] as? Int == 900)

            let turn = try await client.send(.post, "/auth/token", ["refresh_token": first])
            #expect(turn.status == .ok)
            let access = try #require(turn["token"] as? String)
            #expect(try await client.send(.get, "/me", token: access).status == .ok)

            let replay = try await client.send(
                .post,
                "/auth/token",
                ["refresh_token": first],
                headers: [.userAgent: "Replayer/1.0"]
            )
            #expect(replay.status == .unauthorized && replay.errorCode == "refresh_token_reused")
            #expect(try await client.send(.get, "/me", token: access).status == .unauthorized)

            let session = try #require(
                try await client.send(.post, "/auth/login", credentials.merging(["refreshable": false]) { $1 })["token"]
                    as? String
            )
            let log = try await client.send(.get, "/me/security-events", token: session)
            let events = try #require(log["items"] as? [[String: Any]])
            let reuse = try #require(events.first { $0["kind"] as? String == "refresh_token_reused" })
            #expect(reuse["user_agent"] as? String == "Replayer/1.0")
        }
    }

    @Test("a read key reads and is refused 403 on every other method; a read and write key writes")
    func keyScopes() async throws {
        try await withTestClient { client in
            let session = try await registerUser(client, "keys")
            let made = try await client.send(
                .post,
                "/me/api-keys",
                ["password": "a good password", "name": "Dashboard", "scope": "read"],
                token: session
            )
            #expect(made.status == .created)
            let readKey = try #require(made["key"] as? String)
            #expect(try await client.send(.get, "/me", token: readKey).status == .ok)
            for (method, path, body) in [
                (HTTPRequest.Method.post, "/user/metrics", ["weight_kg": 70] as [String: Any]),
                (.patch, "/me", ["display_name": "Key"]),
                (.delete, "/plans/00000000-0000-0000-0000-000000000000", nil),
            ] {
                let refused = try await client.send(method, path, body, token: readKey)
                #expect(refused.status == .forbidden && refused.errorCode == "insufficient_scope", "\(method) \(path)")
            }

            let writer = try await client.send(
                .post,
                "/me/api-keys",
                ["password": "a good password", "name": "Sync", "scope": "read_write"],
                token: session
            )
            let writeKey = try #require(writer["key"] as? String)
            #expect(
                try await client.send(.post, "/user/metrics", ["weight_kg": 70], token: writeKey).status == .created
            )
            let keys = try await client.send(.get, "/me/api-keys", token: writeKey)
            #expect(keys.status == .forbidden && keys.errorCode == "api_key_not_allowed")

            let listed = try await client.send(.get, "/me/api-keys", token: session)
            #expect((listed["items"] as? [[String: Any]])?.count == 2)
            let id = try #require(made["id"] as? String)
            #expect(try await client.send(.delete, "/me/api-keys/\(id)", token: session).status == .noContent)
            #expect(try await client.send(.get, "/me", token: readKey).status == .unauthorized)
        }
    }

    @Test("two-factor sign-in: enrol, confirm with a code, a login answers 202 and its second step signs in")
    func twoFactor() async throws {
        try await withTestClient { client in
            let email = TestDatabase.uniqueEmail("totp")
            let credentials = ["email": email, "password": "a good password"]
            let session = try #require(
                try await client.send(.post, "/auth/register", credentials)["token"] as? String
            )
            let enrolment = try await client.send(
                .post,
                "/me/two-factor",
                ["password": "a good password"],
                token: session
            )
            #expect(enrolment.status == .ok)
            let secret = try #require(enrolment["secret"] as? String)
            // The code an authenticator app shows `steps` of 30 seconds from now, by the rule
            // the server checks with (its RFC 6238 vectors are in sql/tests/16_two_factor.sql).
            let database = try await AsyncConnection.open(try TestDatabase.url())
            func code(_ steps: Int) async throws -> String {
                try #require(
                    try await database.query(
                        "select auth.totp_code(f.secret, auth.totp_step(now()) + $2::integer) "
                            + "from auth.totp_factors as f where auth.base32(f.secret) = $1",
                        [secret, String(steps)]
                    ).scalar
                )
            }
            let confirmed = try await client.send(
                .post,
                "/me/two-factor/confirm",
                ["code": try await code(0)],
                token: session
            )
            #expect((confirmed["recovery_codes"] as? [String])?.count == 10)

            let challenged = try await client.send(.post, "/auth/login", credentials)
            #expect(challenged.status == .accepted && challenged["token"] == nil)
            let challenge = try #require(challenged["challenge"] as? String)
            let signedIn = try await client.send(
                .post,
                "/auth/login/two-factor",
                ["challenge": challenge, "code": try await code(1)]
            )
            #expect(signedIn.status == .ok)
            let token = try #require(signedIn["token"] as? String)
            #expect(try await client.send(.get, "/me/two-factor", token: token)["enabled"] as? Bool == true)
        }
    }

    @Test("user_agent is not a query parameter: the server reads it from the header")
    func userAgentParameterRefused() async throws {
        try await withTestClient { client in
            let session = try await registerUser(client, "agent")
            let refused = try await client.send(.get, "/me/security-events?user_agent=Forged", token: session)
            #expect(refused.status == .badRequest && refused.errorCode == "invalid_parameter")
        }
    }
}
