import Foundation
import LiftbaseCore
import PQ
import Testing

/// The admin CLI, run as the built executable against the migrated test database.
@Suite("admin CLI")
struct CLITests {
    func liftbase(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runCLI(arguments + ["--database-url", try TestDatabase.url()])
    }

    @Test("user create, list, show, disable, enable, reset-password, delete")
    func userLifecycle() throws {
        let email = TestDatabase.uniqueEmail("cli")
        let created = try liftbase("user", "create", email, "--display-name", "Cli User")
        #expect(created.status == 0)
        let generated = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("password: ") })
        #expect(generated.count == "password: ".count + 20)

        #expect(try liftbase("user", "list").stdout.contains(email))
        let shown = try liftbase("user", "show", email.uppercased())
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("\"display_name\": \"Cli User\""))

        #expect(try liftbase("user", "disable", email).status == 0)
        let disabled = try TestDatabase.admin().query(
            "select disabled_at is not null from auth.users where email = $1",
            [email]
        ).scalar
        #expect(disabled == "t")
        #expect(try liftbase("user", "enable", email).status == 0)

        #expect(try liftbase("user", "reset-password", email, "--password", "operator set 1").status == 0)
        let matches = try TestDatabase.admin().query(
            "select auth.password_matches('operator set 1', password_hash) from auth.users where email = $1",
            [email]
        ).scalar
        #expect(matches == "t")
        let weak = try liftbase("user", "reset-password", email, "--password", "short")
        #expect(weak.status == 1)
        #expect(weak.stderr.hasPrefix("liftbase: Some fields are invalid."))

        #expect(try liftbase("user", "delete", email).status == 2)
        #expect(try liftbase("user", "delete", email, "--yes").status == 0)
        let missing = try liftbase("user", "show", email)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("No account with email"))
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test("outbox list shows queued reset tokens; ack removes them from the list")
    func outbox() throws {
        let email = TestDatabase.uniqueEmail("outbox")
        #expect(try liftbase("user", "create", email, "--password", "outbox password").status == 0)
        let admin = try TestDatabase.admin()
        try admin.query("select auth.password_forgot($1)", [email])
        let id = try #require(try admin.query("select id::text from auth.outbox where recipient = $1", [email]).scalar)

        let listed = try liftbase("outbox", "list")
        #expect(listed.stdout.contains(email))
        #expect(try liftbase("outbox", "ack", id).status == 0)
        let payload = try admin.query("select payload::text from auth.outbox where id = $1::bigint", [id]).scalar
        #expect(payload?.contains("token") == false)
        #expect(!(try liftbase("outbox", "list").stdout.contains(email)))
        let again = try liftbase("outbox", "ack", id)
        #expect(again.status == 1)
        #expect(again.stderr.contains("no pending message with id \(id)"))
    }

    @Test("no database configured is a one-line failure")
    func missingDatabase() throws {
        let result = try runCLI(["user", "list"], unsetting: ["DATABASE_URL"])
        #expect(result.status == 1)
        #expect(result.stderr == "liftbase: DATABASE_URL is not set (or pass --database-url)\n")
        let empty = try runCLI(["user", "list"], environment: ["DATABASE_URL": ""])
        #expect(empty.status == 1)
        #expect(
            empty.stderr == "liftbase: DATABASE_URL is set but empty: give it a value, or unset it for the default\n"
        )
    }

    @Test(
        "serve refuses a malformed setting with one line naming it",
        arguments: [
            ("LIFTBASE_PORT", "abc", "liftbase: LIFTBASE_PORT=abc: must be a whole number from 1 to 65535\n"),
            (
                "LOG_LEVEL", "verbose",
                "liftbase: LOG_LEVEL=verbose: must be one of trace, debug, info, notice, warning, error, critical\n"
            ),
        ]
    )
    func serveRefusesMalformedSettings(name: String, value: String, message: String) throws {
        let result = try runCLI(["serve"], environment: [name: value, "DATABASE_URL": try TestDatabase.url()])
        #expect(result.status == 1)
        #expect(result.stderr == message)
    }

    @Test("serve on a port in use names the address and port it could not listen on")
    func servePortInUse() throws {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && listen(holder, 1) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let result = try runCLI(
            ["serve", "--port", String(port)],
            environment: ["DATABASE_URL": try TestDatabase.url(), "LOG_LEVEL": "error"]
        )
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("liftbase: cannot listen on 127.0.0.1:\(port): Address already in use\n"))
    }

    @Test("serve refuses to start on a database whose liftbase.bcrypt_cost is out of range")
    func serveRefusesBadBcryptCost() async throws {
        let prepare: @Sendable (String) throws -> Void = { url in
            try TestDatabase.migrated(url)
            let connection = try Connection(url)
            defer { connection.close() }
            try connection.execute(
                "do $$ begin execute format('alter database %I set liftbase.bcrypt_cost = 16', current_database()); end $$"
            )
        }
        let result = try await TestDatabase.withOwnDatabase(prepare: prepare) { url in
            try await TestDatabase.offThePool {
                try runCLI(["serve", "--port", "18799"], environment: ["DATABASE_URL": url, "LOG_LEVEL": "error"])
            }
        }
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("liftbase: liftbase.bcrypt_cost = 16: must be a whole number from 4 to 15\n"))
    }
}

@Suite("README's command list")
struct READMECommandListTests {
    /// The command paths of the CLI's tree that take no subcommand (`user create`, `deliver`).
    static func commandPaths(_ command: [String: Any], path: [String] = []) -> [String] {
        let subcommands = (command["subcommands"] as? [[String: Any]] ?? []).filter {
            $0["commandName"] as? String != "help"
        }
        guard !subcommands.isEmpty else { return [path.joined(separator: " ")] }
        return subcommands.flatMap { commandPaths($0, path: path + [$0["commandName"] as? String ?? "?"]) }
    }

    @Test("the README's CLI section lists every command of the CLI, and no other")
    func everyCommandListed() throws {
        let dump = try runCLI(["--experimental-dump-help"])
        #expect(dump.status == 0)
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let commands = Set(Self.commandPaths(try #require(tree["command"] as? [String: Any])))
        #expect(commands.contains("outbox retry") && commands.contains("serve"))

        let readme = try String(
            contentsOf: URL(fileURLWithPath: TestDatabase.sqlDirectory).deletingLastPathComponent()
                .appendingPathComponent("README.md"),
            encoding: .utf8
        )
        let section = try #require(readme.components(separatedBy: "## CLI\n").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```").dropFirst().first)
        // A line names its command by the words after `liftbase` up to the first argument.
        let listed = block.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.first == "liftbase" else { return nil }
            return words.dropFirst().prefix { word in
                !word.hasPrefix("-") && word.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }
            }
            .joined(separator: " ")
        }
        #expect(
            Set(listed) == commands,
            "missing: \(commands.subtracting(listed).sorted()), unknown: \(Set(listed).subtracting(commands).sorted())"
        )
        #expect(listed.count == Set(listed).count, "a command listed twice")
    }
}

@Suite("metrics recompute CLI")
struct MetricsRecomputeCLITests {
    @Test("recompute reports per user and prints progress for --all")
    func recompute() throws {
        let url = try TestDatabase.url()
        let email = TestDatabase.uniqueEmail("recompute")
        #expect(try runCLI(["user", "create", email, "--password", "recompute me", "--database-url", url]).status == 0)
        let one = try runCLI(["metrics", "recompute", "--user", email, "--database-url", url])
        #expect(one.status == 0)
        #expect(one.stdout == "recomputed \(email): unchanged\n")

        let all = try runCLI(["metrics", "recompute", "--all", "--batch-size", "1000", "--database-url", url])
        #expect(all.status == 0)
        let lines = all.stdout.split(separator: "\n")
        #expect(lines.first?.contains(" accounts, ") == true)
        #expect(lines.last?.hasPrefix("done: ") == true)

        #expect(try runCLI(["metrics", "recompute", "--database-url", url]).status == 2)
    }
}
