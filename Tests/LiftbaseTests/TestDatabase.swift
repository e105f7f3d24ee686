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

    /// An empty database of a unique name; `drop()` removes it (and closes the admin
    /// connection that made it). When the suite runs on a Citus coordinator the database is
    /// a distributed one, as `Scripts/citus up` makes it: the database and the extension on
    /// every node, the workers registered, so that migrating it distributes its tables.
    struct ScratchDatabase {
        let name: String
        let admin: Connection
        /// The conninfo of each worker's `postgres` database (none on a single node).
        private let workers: [String]

        init() throws {
            name = "liftbase_t_" + TestDatabase.uniqueSuffix()
            admin = try TestDatabase.admin()
            let onCitus =
                try admin.query("select exists (select from pg_extension where extname = 'citus')").scalar == "t"
            let nodes =
                onCitus
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
            _ = try? admin.execute("drop database if exists \(name) with (force)")
            admin.close()
            for worker in workers {
                guard let node = try? Connection(worker) else { continue }
                _ = try? node.execute("drop database if exists \(name) with (force)")
                node.close()
            }
        }
    }

    /// Creates an empty database, runs `body` with its conninfo, and drops it afterwards.
    static func withFreshDatabase<T>(_ body: (String) throws -> T) throws -> T {
        let scratch = try ScratchDatabase()
        defer { scratch.drop() }
        return try body(try url(database: scratch.name))
    }

    /// A fresh database, migrated (without the built-in catalogs), for a test that must
    /// lock or disturb what it reads without touching other tests; dropped afterwards.
    static func withFreshMigratedDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let scratch = try ScratchDatabase()
        defer { scratch.drop() }
        let url = try url(database: scratch.name)
        let migration = try Connection(url)
        try Migrator(directory: sqlDirectory).migrate(on: migration)
        try migration.execute("alter database \(scratch.name) set liftbase.bcrypt_cost = 4")
        migration.close()
        return try await body(url)
    }

    /// Waits until a backend whose application_name is `application` waits on a lock, as
    /// seen through `watcher` (a connection outside the lock's transaction: pg_stat_activity
    /// is read once per transaction); records `otherwise` when none does within 5 s.
    static func waitForLockWait(
        application: String,
        on watcher: Connection,
        otherwise: String = "no backend ever waited on the lock"
    ) async throws {
        // On Citus the lock is on a worker: the coordinator's backend waits for the worker's
        // answer, and citus_lock_waits names it by its global pid.
        let onCitus =
            try watcher.query("select exists (select from pg_extension where extname = 'citus')").scalar == "t"
        let waitingBackends =
            onCitus
            ? """
            select count(*) from citus_lock_waits as w join citus_stat_activity as s on s.global_pid = w.waiting_gpid
             where s.application_name = $1
            """
            : "select count(*) from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'"
        for _ in 0..<500 {
            let waiting = try watcher.query(waitingBackends, [application]).scalar
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
