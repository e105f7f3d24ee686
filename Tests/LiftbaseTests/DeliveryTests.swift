import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import PQ
import Testing

/// `liftbase deliver` against real receivers (Tests/Fixtures/delivery/sinks.py): an SMTP
/// server (aiosmtpd) and an HTTP server, run by the Python that Scripts/test gives in
/// LIFTBASE_TEST_PYTHON. On a database of their own: a worker delivers every due message,
/// and other suites' messages are theirs to see.
@Suite(
    "outbox delivery",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["LIFTBASE_TEST_PYTHON"] != nil)
)
struct DeliveryTests {
    /// A receiver process and the folder it writes what it receives to.
    final class Sink {
        let process = Process()
        let folder: URL
        let port: Int

        init(_ kind: String) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("liftbase-sink-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/delivery/sinks.py")
            process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.environment["LIFTBASE_TEST_PYTHON"]!)
            process.arguments = [script.path, kind, folder.path]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = out.fileHandleForReading.availableData
                guard !chunk.isEmpty else { throw DeliveryTestFailure("the \(kind) sink ended before it was ready") }
                line.append(chunk)
            }
            let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
            guard words.count == 2, words[0] == "ready", let port = Int(words[1]) else {
                throw DeliveryTestFailure("the \(kind) sink said \(words)")
            }
            self.port = port
        }

        /// What it received so far, oldest first.
        func received() throws -> [Data] {
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension != "part" }
                .sorted { Self.number($0) < Self.number($1) }
                .map { try Data(contentsOf: $0) }
        }

        func requests() throws -> [[String: Any]] {
            try received().map { try #require(try JSONSerialization.jsonObject(with: $0) as? [String: Any]) }
        }

        static func number(_ file: URL) -> Int {
            Int(file.deletingPathExtension().lastPathComponent.split(separator: "-").last ?? "") ?? 0
        }

        deinit {
            // SIGKILL: aiosmtpd's event loop outlives a SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Runs `body` on a newly migrated database of its own, dropped afterwards.
    static func withOwnDatabase(_ body: (String) async throws -> Void) async throws {
        try await TestDatabase.withOwnDatabase(
            prepare: { url in
                let migrated = try runCLI(["migrate", "--without-builtin-catalogs", "--database-url", url])
                guard migrated.status == 0 else { throw DeliveryTestFailure("liftbase migrate: \(migrated.stderr)") }
                let connection = try Connection(url)
                defer { connection.close() }
                try TestDatabase.applyTestSettings(on: connection)
            },
            body
        )
    }

    static func deliver(
        _ url: String,
        _ arguments: [String] = ["--once"],
        environment: [String: String]
    )
        throws -> (status: Int32, stdout: String, stderr: String)
    {
        try runCLI(["deliver"] + arguments + ["--database-url", url], environment: environment)
    }

    @Test("forgot password → a mail over SMTP → its link resets the password")
    func resetMail() async throws {
        try await Self.withOwnDatabase { url in
            let smtp = try Sink("smtp")
            let email = TestDatabase.uniqueEmail("mail")
            try await withTestClient(databaseURL: url) { client in
                _ = try await client.send(.post, "/auth/register", ["email": email, "password": "old password 1"])
                let forgot = try await client.send(.post, "/auth/password/forgot", ["email": email])
                #expect(forgot.status == .accepted)
            }
            try await Self.dropVerificationMails(url)
            let environment = [
                "LIFTBASE_SMTP_HOST": "127.0.0.1", "LIFTBASE_SMTP_PORT": String(smtp.port),
                "LIFTBASE_SMTP_STARTTLS": "off", "LIFTBASE_SMTP_FROM": "Liftbase <no-reply@example.com>",
                "LIFTBASE_PUBLIC_URL": "https://app.example.com",
            ]
            let run = try Self.deliver(url, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("delivered 1 message(s)"))

            let mails = try smtp.received().map { String(decoding: $0, as: UTF8.self) }
            try #require(mails.count == 1)
            let mail = mails[0]
            #expect(mail.contains("To: \(email)"))
            #expect(mail.contains("Subject: Reset your Liftbase password"))
            #expect(mail.contains("Content-Type: multipart/alternative"))
            let link = try #require(
                mail.range(
                    of: #"https://app\.example\.com/reset-password\?token=[A-Za-z0-9%]+"#,
                    options: .regularExpression
                )
            )
            let token = try #require(
                String(mail[link]).components(separatedBy: "token=").last?.removingPercentEncoding
            )

            try await withTestClient(databaseURL: url) { client in
                let reset = try await client.send(
                    .post,
                    "/auth/password/reset",
                    ["token": token, "new_password": "new password 2"]
                )
                #expect(reset.status == .noContent)
                let login = try await client.send(.post, "/auth/login", ["email": email, "password": "new password 2"])
                #expect(login.status == .ok)
            }
            // Delivered once: a second run finds nothing due.
            #expect(try Self.deliver(url, environment: environment).stdout.contains("delivered 0 message(s)"))
            #expect(try smtp.received().count == 1)
        }
    }

    /// A user with a webhook subscription to `path` on `sink`, and one session logged: the
    /// A sign-up queues a verification mail (docs/security.md): these tests follow the
    /// messages they queue themselves.
    static func dropVerificationMails(_ url: String) async throws {
        let admin = try await AsyncConnection.open(url)
        try await admin.execute("delete from auth.outbox where kind = 'email_verification'")
    }

    /// `workout.logged` delivery waits in the outbox. Answers the subscription's secret.
    static func subscribedUser(_ url: String, sink: Sink, path: String) async throws -> String {
        let target = "http://127.0.0.1:\(sink.port)\(path)"
        let secret = ClosureResult("")
        try await withTestClient(databaseURL: url) { client in
            let token = try await registerUser(client, "hooks")
            let subscription = try await client.send(
                .post,
                "/webhooks",
                ["url": target, "events": ["workout.logged"]],
                token: token
            )
            #expect(subscription.status == .created)
            secret.value = try #require(subscription["secret"] as? String)
            let session = try await client.send(
                .post,
                "/training/sessions",
                TrainingHTTPTests.session(date: "2026-05-01"),
                token: token
            )
            #expect(session.status == .created)
        }
        try await dropVerificationMails(url)
        return secret.value
    }

    @Test("a webhook arrives signed as Standard Webhooks says; a private target is refused unless allowed")
    func signedWebhook() async throws {
        try await Self.withOwnDatabase { url in
            let http = try Sink("http")
            let secret = try await Self.subscribedUser(url, sink: http, path: "/ok")

            let refused = try Self.deliver(url, environment: [:])
            #expect(refused.status == 0)
            #expect(try http.received().isEmpty)
            let listed = try runCLI(["outbox", "list", "--all", "--database-url", url])
            #expect(listed.stdout.contains("refused: 127.0.0.1 resolves to 127.0.0.1, a loopback address"))

            let admin = try await AsyncConnection.open(url)
            try await admin.execute("update auth.outbox set next_attempt_at = now()")
            let run = try Self.deliver(url, environment: ["LIFTBASE_WEBHOOKS_ALLOW_PRIVATE": "on"])
            #expect(run.status == 0, "\(run.stderr)")
            let requests = try http.requests()
            try #require(requests.count == 1)
            let headers = try #require(requests[0]["headers"] as? [String: String])
            let body = try #require(requests[0]["body"] as? String)
            let id = try #require(headers["webhook-id"])
            let timestamp = try #require(headers["webhook-timestamp"])
            #expect(
                headers["webhook-signature"] == "v1," + Self.signature(secret: secret, "\(id).\(timestamp).\(body)")
            )
            let event = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            #expect(event["type"] as? String == "workout.logged")
            #expect(abs((Double(timestamp) ?? 0) - Date().timeIntervalSince1970) < 120)
        }
    }

    @Test("a failing target is tried again after a backoff, then becomes a dead letter; retry revives it")
    func deadLetter() async throws {
        try await Self.withOwnDatabase { url in
            let http = try Sink("http")
            _ = try await Self.subscribedUser(url, sink: http, path: "/fail")
            let environment = ["LIFTBASE_WEBHOOKS_ALLOW_PRIVATE": "on", "LIFTBASE_DELIVERY_MAX_ATTEMPTS": "2"]
            let admin = try await AsyncConnection.open(url)

            #expect(try Self.deliver(url, environment: environment).status == 0)
            let waiting = try await admin.query(
                "select attempts, last_status, next_attempt_at > now() + interval '20 seconds', dead_at is null from auth.outbox"
            ).rows
            #expect(waiting == [["1", "500", "t", "t"]])

            try await admin.execute("update auth.outbox set next_attempt_at = now()")
            #expect(try Self.deliver(url, environment: environment).status == 0)
            #expect(try http.received().count == 2)
            let listed = try runCLI(["outbox", "list", "--dead", "--database-url", url])
            #expect(listed.stdout.contains("dead"))
            let id = try #require(
                try await admin.query("select id::text from auth.outbox where dead_at is not null").scalar
            )

            #expect(try runCLI(["outbox", "retry", id, "--database-url", url]).status == 0)
            #expect(try Self.deliver(url, environment: environment).status == 0)
            #expect(try http.received().count == 3)
        }
    }

    /// `liftbase deliver` with `arguments`, started and left while it sends a webhook to the
    /// sink's `/slow`, which writes the request down as it arrives, then holds the answer 5 s.
    static func workerInSlowSend(_ url: String, _ arguments: [String], sink: Sink, errors: Any) async throws -> Process
    {
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/liftbase")
        worker.arguments = ["deliver"] + arguments + ["--database-url", url]
        worker.environment = ProcessInfo.processInfo.environment.merging(["LIFTBASE_WEBHOOKS_ALLOW_PRIVATE": "on"]) {
            $1
        }
        worker.standardOutput = FileHandle.nullDevice
        worker.standardError = errors
        try worker.run()
        let deadline = Date().addingTimeInterval(20)
        while try sink.received().isEmpty && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        try #require(try sink.received().count == 1)
        return worker
    }

    @Test("a worker killed mid-delivery loses nothing: the message is sent again after its lease")
    func killedWorker() async throws {
        try await Self.withOwnDatabase { url in
            let http = try Sink("http")
            _ = try await Self.subscribedUser(url, sink: http, path: "/slow")
            let worker = try await Self.workerInSlowSend(
                url,
                ["--lease", "2"],
                sink: http,
                errors: FileHandle.nullDevice
            )
            kill(worker.processIdentifier, SIGKILL)
            worker.waitUntilExit()

            try await Task.sleep(for: .seconds(3))  // the lease lapses
            let admin = try await AsyncConnection.open(url)
            #expect(try await admin.query("select delivered_at is null from auth.outbox").scalar == "t")
            try await admin.execute("update auth.outbox set next_attempt_at = now() where delivered_at is null")
            let again = try Self.deliver(url, environment: ["LIFTBASE_WEBHOOKS_ALLOW_PRIVATE": "on"])
            #expect(again.status == 0, "\(again.stderr)")
            let requests = try http.requests()
            try #require(requests.count == 2)
            let ids = requests.map { ($0["headers"] as? [String: String])?["webhook-id"] }
            #expect(ids[0] != nil && ids[0] == ids[1])
            #expect(try await admin.query("select delivered_at is not null from auth.outbox").scalar == "t")
        }
    }

    @Test("SIGTERM mid-send: the worker ends at once and gives the message back, due now, its try not spent")
    func stoppedWorker() async throws {
        try await Self.withOwnDatabase { url in
            let http = try Sink("http")
            _ = try await Self.subscribedUser(url, sink: http, path: "/slow")
            let errors = Pipe()
            let worker = try await Self.workerInSlowSend(
                url,
                ["--name", "stopping-worker"],
                sink: http,
                errors: errors
            )
            let stopping = ContinuousClock.now
            kill(worker.processIdentifier, SIGTERM)
            worker.waitUntilExit()
            let stopped = ContinuousClock.now - stopping
            #expect(stopped < .seconds(2), "the worker ended \(stopped) after SIGTERM, its send held 5 s")
            let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(log.contains("gave back 1 claimed message(s) unsent"), "\(log)")

            let admin = try await AsyncConnection.open(url)
            let row = try await admin.query(
                "select attempts, lease_until is null, locked_by is null, next_attempt_at <= now() from auth.outbox"
            ).rows
            #expect(row == [["0", "t", "t", "t"]], "due again at once for another worker, no try spent")
        }
    }

    @Test("deliver --once that finds the due messages held by another worker says which")
    func onceNamesOtherWorkers() async throws {
        try await Self.withOwnDatabase { url in
            let email = TestDatabase.uniqueEmail("held")
            try await withTestClient(databaseURL: url) { client in
                _ = try await client.send(.post, "/auth/register", ["email": email, "password": "old password 1"])
                _ = try await client.send(.post, "/auth/password/forgot", ["email": email])
            }
            try await Self.dropVerificationMails(url)
            let admin = try await AsyncConnection.open(url)
            // What `Scripts/run`'s worker does a second after the message is queued.
            try await admin.query("select count(*) from auth.outbox_claim('run-worker', 20, interval '1 minute')")
            let run = try Self.deliver(url, environment: ["LIFTBASE_SMTP_HOST": "127.0.0.1"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stdout
                    == "delivered 0 message(s)\nother workers hold messages being delivered now: run-worker (1)\n"
            )
        }
    }

    @Test("a relay without the STARTTLS the settings ask for: said once with the fix, and the mail keeps its tries")
    func startTLSNotOffered() async throws {
        try await Self.withOwnDatabase { url in
            let smtp = try Sink("smtp")
            let email = TestDatabase.uniqueEmail("tls")
            try await withTestClient(databaseURL: url) { client in
                _ = try await client.send(.post, "/auth/register", ["email": email, "password": "old password 1"])
                _ = try await client.send(.post, "/auth/password/forgot", ["email": email])
            }
            try await Self.dropVerificationMails(url)
            var environment = ["LIFTBASE_SMTP_HOST": "127.0.0.1", "LIFTBASE_SMTP_PORT": String(smtp.port)]
            let run = try Self.deliver(url, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("delivered 0 message(s)"))
            let problems = run.stderr.split(separator: "\n").filter { $0.contains("mail is not sent") }
            #expect(problems.count == 1, "\(run.stderr)")
            #expect(problems.first?.contains("does not offer STARTTLS: set LIFTBASE_SMTP_STARTTLS=off") == true)
            let admin = try await AsyncConnection.open(url)
            let kept = "select attempts, dead_at is null from auth.outbox where channel = 'email'"
            #expect(try await admin.query(kept).rows == [["0", "t"]])

            environment["LIFTBASE_SMTP_STARTTLS"] = "off"
            #expect(try Self.deliver(url, environment: environment).stdout.contains("delivered 1 message(s)"))
            #expect(try smtp.received().count == 1)
        }
    }

    /// HMAC-SHA256 (RFC 2104) of `message` keyed with the base64 part of a `whsec_` secret,
    /// in base64: the Standard Webhooks signature, computed here apart from SQL's pgcrypto.
    static func signature(secret: String, _ message: String) -> String {
        let key = Array(Data(base64Encoded: String(secret.dropFirst("whsec_".count))) ?? Data())
        let block = 64
        var padded = key.count > block ? SHA256.hash(key) : key
        padded += [UInt8](repeating: 0, count: block - padded.count)
        let inner = SHA256.hash(padded.map { $0 ^ 0x36 } + Array(message.utf8))
        return Data(SHA256.hash(padded.map { $0 ^ 0x5c } + inner)).base64EncodedString()
    }
}

struct DeliveryTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
