import Foundation
import LiftbaseCore
import PQ
import Testing

/// The PostgreSQL the tests run against: `LIFTBASE_TEST_DATABASE_URL`, a migrated database
/// on the throwaway cluster of Scripts/test (a libpq keyword/value conninfo).
enum TestDatabase {
    static func url() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["LIFTBASE_TEST_DATABASE_URL"],
            "LIFTBASE_TEST_DATABASE_URL is not set: run the tests through Scripts/test"
        )
    }

    /// The repository's sql/ folder.
    static let sqlDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sql").path

    /// An administrative connection to the migrated test database.
    static func admin() throws -> Connection {
        try Connection(try url())
    }

    /// The conninfo of `url()` pointed at another database (later keywords win in libpq).
    static func url(database: String) throws -> String {
        try url() + " dbname=\(database)"
    }

    /// An empty database of a unique name; `drop()` removes it. On a Citus coordinator a
    /// `distributed` one is made as `Scripts/citus up` makes the cluster's: the database and
    /// the extension on every node, the workers registered, so that migrating it distributes
    /// its tables.
    struct ScratchDatabase: Sendable {
        let name: String
        /// The conninfo of each worker's `postgres` database (none unless distributed).
        private let workers: [String]

        init(distributed: Bool = false) throws {
            name = "liftbase_t_" + TestDatabase.uniqueSuffix()
            let admin = try TestDatabase.admin()
            defer { admin.close() }
            let onCitus =
                try admin.query("select exists (select from pg_extension where extname = 'citus')").scalar == "t"
            let nodes =
                distributed && onCitus
                ? try admin.query("select nodename, nodeport, groupid = 0 from pg_dist_node where noderole = 'primary'")
                    .rows
                : []
            workers = try nodes.filter { $0[2] == "f" }.map {
                try TestDatabase.url() + " host=\($0[0] ?? "") port=\($0[1] ?? "") dbname=postgres"
            }
            try admin.execute("create database \(name)")
            guard let coordinator = nodes.first(where: { $0[2] == "t" }) else { return }
            for worker in workers {
                try Self.createWithCitus(name, over: worker)
            }
            let database = try Connection(TestDatabase.url(database: name))
            defer { database.close() }
            try database.execute("create extension citus")
            try database.query("select citus_set_coordinator_host($1, $2::int)", [coordinator[0], coordinator[1]])
            for node in nodes where node[2] == "f" {
                try database.query("select citus_add_node($1, $2::int)", [node[0], node[1]])
            }
            try admin.execute("alter database \(name) set citus.shard_count = 4")
        }

        /// Creates database `name` with the Citus extension on the node `postgres` reaches.
        private static func createWithCitus(_ name: String, over postgres: String) throws {
            let node = try Connection(postgres)
            defer { node.close() }
            try node.execute("create database \(name)")
            let database = try Connection(postgres + " dbname=\(name)")
            defer { database.close() }
            try database.execute("create extension citus")
        }

        func drop() {
            for conninfo in [try? TestDatabase.url()].compactMap({ $0 }) + workers {
                guard let node = try? Connection(conninfo) else { continue }
                _ = try? node.execute("drop database if exists \(name) with (force)")
                node.close()
            }
        }
    }

    /// Runs blocking work (libpq, a child process) on a thread of its own, off the
    /// cooperative pool that the suite's tests share: held there for seconds, it would stall
    /// every other test's timing.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    private static let migrating = NSLock()

    /// Runs `work` (which makes or migrates a database) while no other test of this process
    /// does: a migration's first steps change roles, which every database of a cluster shares
    /// (and Citus changes on every node), and two at once fail with "tuple concurrently
    /// updated".
    static func oneMigrationAtATime<T>(_ work: () throws -> T) throws -> T {
        migrating.lock()
        defer { migrating.unlock() }
        return try work()
    }

    /// A database of its own for `body`, made by `prepare` (given its conninfo) and dropped
    /// afterwards, both off the cooperative pool. On Citus it is distributed, so that the
    /// test runs on the cluster as the rest of the suite does.
    static func withOwnDatabase<T>(
        prepare: @escaping @Sendable (String) throws -> Void = { _ in },
        _ body: (String) async throws -> T
    ) async throws -> T {
        let scratch = try await offThePool {
            try oneMigrationAtATime {
                let scratch = try ScratchDatabase(distributed: true)
                do {
                    try prepare(try TestDatabase.url(database: scratch.name))
                } catch {
                    scratch.drop()
                    throw error
                }
                return scratch
            }
        }
        do {
            let result = try await body(try url(database: scratch.name))
            try await offThePool { scratch.drop() }
            return result
        } catch {
            _ = try? await offThePool { scratch.drop() }
            throw error
        }
    }

    /// Migrates the database `url` names (without the built-in catalogs), with the bcrypt
    /// cost of the test cluster.
    @Sendable static func migrated(_ url: String) throws {
        let migration = try Connection(url)
        defer { migration.close() }
        try Migrator(directory: sqlDirectory).migrate(on: migration)
        try applyTestSettings(on: migration)
    }

    /// What the test cluster's database has (Scripts/test), for the database `connection` is
    /// on: the cheapest bcrypt cost, and rate limits that the suite, signing up and in from
    /// one address, never reaches.
    static func applyTestSettings(on connection: Connection) throws {
        try connection.execute(
            """
            do $$ begin
              execute format('alter database %I set liftbase.bcrypt_cost = 4', current_database());
              execute format('alter database %I set liftbase.rate_limits = %L', current_database(), 'all=1000000/1 hour');
            end $$
            """
        )
    }

    /// A fresh database, migrated (without the built-in catalogs), for a test that must
    /// lock or disturb what it reads without touching other tests; dropped afterwards.
    static func withFreshMigratedDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        try await withOwnDatabase(prepare: migrated, body)
    }

    /// Waits until a backend whose application_name is `application` waits on a lock, as
    /// seen through `watcher` (a connection outside the lock's transaction: pg_stat_activity
    /// is read once per transaction); records `otherwise` when none does within 5 s.
    static func waitForLockWait(
        application: String,
        on watcher: AsyncConnection,
        otherwise: String = "no backend ever waited on the lock"
    ) async throws {
        // On Citus the lock is on a worker: the coordinator's backend waits for the worker's
        // answer, and citus_lock_waits names it by its global pid.
        let onCitus =
            try await watcher.query("select exists (select from pg_extension where extname = 'citus')").scalar == "t"
        let waitingBackends =
            onCitus
            ? """
            select count(*) from citus_lock_waits as w join citus_stat_activity as s on s.global_pid = w.waiting_gpid
             where s.application_name = $1
            """
            : "select count(*) from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'"
        for _ in 0..<500 {
            let waiting = try await watcher.query(waitingBackends, [application]).scalar
            if waiting != "0" { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record(Comment(rawValue: otherwise))
    }

    static func uniqueSuffix() -> String {
        String(UInt64.random(in: .min ... .max), radix: 36)
    }

    static func uniqueEmail(_ label: String = "user") -> String {
        "\(label)-\(uniqueSuffix())@example.com"
    }
}
