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

    /// Creates an empty database, runs `body` with its conninfo, and drops it afterwards.
    static func withFreshDatabase<T>(_ body: (String) throws -> T) throws -> T {
        let name = "liftbase_t_" + uniqueSuffix()
        let admin = try admin()
        try admin.execute("create database \(name)")
        defer {
            _ = try? admin.execute("drop database if exists \(name) with (force)")
            admin.close()
        }
        return try body(try url(database: name))
    }

    /// A fresh database, migrated (without the built-in catalogs), for a test that must
    /// lock or disturb what it reads without touching other tests; dropped afterwards.
    static func withFreshMigratedDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let name = "liftbase_t_" + uniqueSuffix()
        let admin = try admin()
        try admin.execute("create database \(name)")
        defer {
            _ = try? admin.execute("drop database if exists \(name) with (force)")
            admin.close()
        }
        let url = try url(database: name)
        let migration = try Connection(url)
        try Migrator(directory: sqlDirectory).migrate(on: migration)
        try migration.execute("alter database \(name) set liftbase.bcrypt_cost = 4")
        migration.close()
        return try await body(url)
    }

    static func uniqueSuffix() -> String {
        String(UInt64.random(in: .min ... .max), radix: 36)
    }

    static func uniqueEmail(_ label: String = "user") -> String {
        "\(label)-\(uniqueSuffix())@example.com"
    }
}
