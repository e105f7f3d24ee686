import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import LiftbaseHTTP
import Logging
import PQ
import Testing

/// The HTTP API end to end: Hummingbird's router test client → responder → pool →
/// PostgreSQL, on the migrated test database.
@Suite("HTTP API")
struct HTTPTests {
    func withClient(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await withTestClient(body)
    }

    @Test("register → login → me → logout → 401")
    func sessionFlow() async throws {
        let email = TestDatabase.uniqueEmail("flow")
        try await withClient { client in
            let registered = try await client.send(
                .post,
                "/auth/register",
                ["email": email, "password": "s3cret-pass", "display_name": "Flo"]
            )
            #expect(registered.status == .created)
            #expect(registered["user", "email"] as? String == email)

            let login = try await client.send(
                .post,
                "/auth/login",
                ["email": email.uppercased(), "password": "s3cret-pass"]
            )
            #expect(login.status == .ok)
            let token = try #require(login["token"] as? String)

            let me = try await client.send(.get, "/me", token: token)
            #expect(me.status == .ok)
            #expect(me["user", "display_name"] as? String == "Flo")
            #expect(me["needs_onboarding"] as? Bool == true)
            #expect(me["settings", "unit_system"] as? String == "metric")

            #expect(try await client.send(.post, "/auth/logout", token: token).status == .noContent)
            let after = try await client.send(.get, "/me", token: token)
            #expect(after.status == .unauthorized)
            #expect(after.errorCode == "invalid_token")
            #expect(try await client.send(.get, "/me").errorCode == "missing_token")
        }
    }

    @Test("validation errors list every bad field; a taken email is 409")
    func registrationErrors() async throws {
        let email = TestDatabase.uniqueEmail("dup")
        try await withClient { client in
            let invalid = try await client.send(.post, "/auth/register", ["email": "nope", "password": "short"])
            #expect(invalid.status == .unprocessableContent)
            #expect(
                invalid["error", "fields"] as? [String: String] == [
                    "email": "must be an email address", "password": "must be at least 8 characters",
                ]
            )
            #expect(
                try await client.send(.post, "/auth/register", ["email": email, "password": "long enough"]).status
                    == .created
            )
            let taken = try await client.send(
                .post,
                "/auth/register",
                ["email": email.uppercased(), "password": "long enough"]
            )
            #expect(taken.status == .conflict)
            #expect(taken.errorCode == "email_taken")
        }
    }

    @Test("5 failed logins within 15 minutes → 429 with Retry-After")
    func lockout() async throws {
        let email = TestDatabase.uniqueEmail("lock")
        try await withClient { client in
            _ = try await client.send(.post, "/auth/register", ["email": email, "password": "right password"])
            for _ in 0..<5 {
                let failed = try await client.send(
                    .post,
                    "/auth/login",
                    ["email": email, "password": "wrong password"]
                )
                #expect(failed.status == .unauthorized)
                #expect(failed.errorCode == "invalid_credentials")
            }
            let locked = try await client.send(.post, "/auth/login", ["email": email, "password": "right password"])
            #expect(locked.status == .tooManyRequests)
            #expect(locked.errorCode == "too_many_attempts")
            let retryAfter = try #require(locked.headers[HTTPField.Name("Retry-After")!].flatMap(Int.init))
            #expect((1...900).contains(retryAfter))
        }
    }

    @Test("a body over 1 MiB is 413")
    func bodyTooLarge() async throws {
        try await withClient { client in
            let big = "{\"email\":\"" + String(repeating: "a", count: 1 << 20) + "\"}"
            let response = try await client.execute(
                uri: "/api/v1/auth/register",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: big)
            )
            #expect(response.status == .contentTooLarge)
            #expect(APIAnswer(response, method: .post, uri: "/api/v1/auth/register").errorCode == "body_too_large")
        }
    }

    @Test("a wrong method is 405 with Allow; an unknown route 404; both in the error shape")
    func routingErrors() async throws {
        try await withClient { client in
            let wrongMethod = try await client.send(.put, "/me")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.errorCode == "method_not_allowed")
            let allow = Set(
                (wrongMethod.headers[.allow] ?? "").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            )
            #expect(allow == ["GET", "PATCH", "DELETE"])

            let unknown = try await client.send(.get, "/no/such/route")
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "not_found")
            let outside = try await client.execute(uri: "/nothing-here", method: .get)
            #expect(outside.status == .notFound)
        }
    }

    @Test("malformed JSON is 400 and nothing is written")
    func malformedJSON() async throws {
        try await withClient { client in
            let response = try await client.execute(
                uri: "/api/v1/auth/register",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"email": "x@y.io", "password": "#)
            )
            #expect(response.status == .badRequest)
            #expect(APIAnswer(response, method: .post, uri: "/api/v1/auth/register").errorCode == "malformed_json")
        }
    }

    @Test("password forgot → outbox → reset: old sessions end, the new password logs in")
    func passwordReset() async throws {
        let email = TestDatabase.uniqueEmail("reset")
        try await withClient { client in
            let registered = try await client.send(
                .post,
                "/auth/register",
                ["email": email, "password": "first password"]
            )
            let oldToken = try #require(registered["token"] as? String)
            #expect(try await client.send(.post, "/auth/password/forgot", ["email": email]).status == .accepted)
            #expect(
                try await client.send(.post, "/auth/password/forgot", ["email": TestDatabase.uniqueEmail("ghost")])
                    .status == .accepted
            )

            let resetToken = try #require(
                try await TestDatabase.adminQuery(
                    "select payload ->> 'token' from auth.outbox where recipient = $1 and kind = 'password_reset'",
                    [email]
                ).scalar
            )
            let reset = try await client.send(
                .post,
                "/auth/password/reset",
                ["token": resetToken, "new_password": "second password"]
            )
            #expect(reset.status == .noContent)
            #expect(try await client.send(.get, "/me", token: oldToken).status == .unauthorized)
            let reused = try await client.send(
                .post,
                "/auth/password/reset",
                ["token": resetToken, "new_password": "third password"]
            )
            #expect(reused.status == .badRequest)
            #expect(reused.errorCode == "invalid_or_expired_token")
            #expect(
                try await client.send(.post, "/auth/login", ["email": email, "password": "second password"]).status
                    == .ok
            )
        }
    }

    @Test("password change keeps this session and ends the others")
    func passwordChange() async throws {
        let email = TestDatabase.uniqueEmail("change")
        try await withClient { client in
            let first = try #require(
                try await client.send(.post, "/auth/register", ["email": email, "password": "first password"])["token"]
                    as? String
            )
            let second = try #require(
                try await client.send(.post, "/auth/login", ["email": email, "password": "first password"])["token"]
                    as? String
            )
            let wrong = try await client.send(
                .post,
                "/auth/password/change",
                ["current_password": "nope nope", "new_password": "second password"],
                token: first
            )
            #expect(wrong.status == .forbidden)
            let changed = try await client.send(
                .post,
                "/auth/password/change",
                ["current_password": "first password", "new_password": "second password"],
                token: first
            )
            #expect(changed.status == .noContent)
            #expect(try await client.send(.get, "/me", token: first).status == .ok)
            #expect(try await client.send(.get, "/me", token: second).status == .unauthorized)
        }
    }

    @Test("PATCH /me updates the display name; DELETE /me removes every row of the user")
    func updateAndDelete() async throws {
        let email = TestDatabase.uniqueEmail("delete")
        try await withClient { client in
            let registered = try await client.send(
                .post,
                "/auth/register",
                ["email": email, "password": "delete me please"]
            )
            let token = try #require(registered["token"] as? String)
            let userID = try #require(registered["user", "id"] as? String)
            let patched = try await client.send(.patch, "/me", ["display_name": "  New Name "], token: token)
            #expect(patched.status == .ok)
            #expect(patched["user", "display_name"] as? String == "New Name")
            #expect(
                try await client.send(.patch, "/me", ["display_name": ""], token: token).status == .unprocessableContent
            )

            _ = try await client.send(.post, "/auth/password/forgot", ["email": email])
            #expect(
                try await client.send(.delete, "/me", ["password": "wrong one!"], token: token).status == .forbidden
            )
            #expect(
                try await client.send(.delete, "/me", ["password": "delete me please"], token: token).status
                    == .noContent
            )

            let remaining = try await TestDatabase.adminQuery(
                """
                select (select count(*) from auth.users where id = $1::uuid)
                     + (select count(*) from auth.sessions where user_id = $1::uuid)
                     + (select count(*) from auth.password_resets where user_id = $1::uuid)
                     + (select count(*) from auth.outbox where user_id = $1::uuid)
                     + (select count(*) from app.user_settings where user_id = $1::uuid)
                """,
                [userID]
            ).scalar
            #expect(remaining == "0")
        }
    }

    @Test("operational routes: healthz, readyz, metrics, openapi.json with every endpoint, request ids")
    func operationalRoutes() async throws {
        try await withClient { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)

            let openAPI = try await client.execute(uri: "/openapi.json", method: .get)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: openAPI.body)) as? [String: Any]
            )
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            for endpoint in endpoints {
                #expect(
                    paths[apiBasePath + endpoint.path]?[endpoint.method.rawValue.lowercased()] != nil,
                    "\(endpoint.method) \(endpoint.path)"
                )
            }

            let echoed = try await client.execute(
                uri: "/healthz",
                method: .get,
                headers: [HTTPField.Name("X-Request-Id")!: "abc-123"]
            )
            #expect(echoed.headers[HTTPField.Name("X-Request-Id")!] == "abc-123")
            let generated = try await client.execute(uri: "/healthz", method: .get)
            #expect((generated.headers[HTTPField.Name("X-Request-Id")!] ?? "").count == 16)

            _ = try await client.send(.get, "/me")
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"liftbase_http_requests_total{method="GET",route="/me",status="401"} 1"#))
            #expect(metrics.contains("liftbase_http_request_duration_seconds_bucket"))
            #expect(metrics.contains("liftbase_db_pool_in_use"))
            #expect(metrics.contains("liftbase_db_pipelined_statements_total 0"))
            // The outbox, read through auth.outbox_metrics() by the API role.
            for kind in ["email", "webhook"] {
                #expect(metrics.contains(#"liftbase_outbox_due{kind="\#(kind)"} "#))
                #expect(metrics.contains(#"liftbase_outbox_dead{kind="\#(kind)"} "#))
            }
        }
    }
}
