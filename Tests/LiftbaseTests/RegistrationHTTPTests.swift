import Foundation
import HummingbirdTesting
import Testing

/// Registration the operator controls, over HTTP and the CLI: an invitation made by
/// `liftbase invite create` lets its address in when sign-up is by invitation only, and a
/// server that requires verified addresses signs an account in once its mail's link is
/// followed. Each test has a database of its own with its setting.
@Suite("registration over HTTP", .timeLimit(.minutes(2)))
struct RegistrationHTTPTests {
    /// A fresh database whose setting `name` is `value` (test constants).
    func withSetting(_ name: String, _ value: String, _ body: (String) async throws -> Void) async throws {
        try await TestDatabase.withFreshMigratedDatabase { url in
            let admin = try await AsyncConnection.open(url)
            try await admin.execute(
                "do $$ begin execute format('alter database %I set \(name) = %L', current_database(), '\(value)'); end $$"
            )
            try await body(url)
        }
    }

    @Test(
        "by invitation only: no sign-up without one; `liftbase invite create` makes one that lets its address in once"
    )
    func inviteOnly() async throws {
        try await withSetting("liftbase.registration", "invite_only") { url in
            let email = TestDatabase.uniqueEmail("invited")
            let invited = try await runCLIOffThePool(["invite", "create", email, "--days", "3", "--database-url", url])
            #expect(invited.status == 0, "\(invited.stderr)")
            let token = try #require(
                invited.stdout.split(separator: "\n").first { $0.hasPrefix("token: ") }?.dropFirst("token: ".count)
            )
            let listed = try await runCLIOffThePool(["invite", "list", "--database-url", url])
            #expect(listed.stdout.contains(email) && listed.stdout.contains("open"), "\(listed.stdout)")
            try await withTestClient(databaseURL: url) { client in
                let body = ["email": email, "password": "a good password"]
                let refused = try await client.send(.post, "/auth/register", body)
                #expect(refused.status == .forbidden && refused.errorCode == "invitation_required")
                let admitted = try await client.send(
                    .post,
                    "/auth/register",
                    ["email": email, "password": "a good password", "invitation": String(token)]
                )
                #expect(admitted.status == .created)
                #expect(admitted["user", "email_verified"] as? Bool == true, "the invitation was mailed to the address")
                #expect(admitted["token"] is String)
                let again = try await client.send(
                    .post,
                    "/auth/register",
                    ["email": email.uppercased(), "password": "a good password", "invitation": String(token)]
                )
                #expect(again.status == .forbidden && again.errorCode == "invalid_invitation", "spent")
            }
        }
    }

    @Test("verified addresses required: a sign-up has no token and its login is 403 until the mail's link is followed")
    func verifiedAddressRequired() async throws {
        try await withSetting("liftbase.require_verified_email", "on") { url in
            let email = TestDatabase.uniqueEmail("verify")
            let credentials = ["email": email, "password": "a good password"]
            try await withTestClient(databaseURL: url) { client in
                let registered = try await client.send(.post, "/auth/register", credentials)
                #expect(registered.status == .created)
                #expect(registered["token"] is NSNull, "no token before the address is verified")
                let early = try await client.send(.post, "/auth/login", credentials)
                #expect(early.status == .forbidden && early.errorCode == "email_not_verified")

                let outbox = try await AsyncConnection.open(url)
                let token = try #require(
                    try await outbox.query(
                        "select payload ->> 'token' from auth.outbox where recipient = $1 and kind = 'email_verification'",
                        [email]
                    ).scalar
                )
                let verified = try await client.send(.post, "/auth/email/verify", ["token": token])
                #expect(verified.status == .noContent)
                let login = try await client.send(.post, "/auth/login", credentials)
                #expect(login.status == .ok && login["user", "email_verified"] as? Bool == true)
                let reused = try await client.send(.post, "/auth/email/verify", ["token": token])
                #expect(reused.status == .badRequest && reused.errorCode == "invalid_or_expired_token")
            }
        }
    }
}
