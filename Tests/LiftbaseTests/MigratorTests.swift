import Foundation
import LiftbaseCore
import PQ
import Testing

@Suite("migrator")
struct MigratorTests {
    // Each test below migrates a database of its own (distributed on Citus), on a thread off
    // the cooperative pool, and checks what it saw afterwards, back on the test's task.

    @Test("a fresh database is migrated once; a second run finds nothing to do")
    func migratesOnce() async throws {
        let migrator = try Migrator(directory: TestDatabase.sqlDirectory)
        let seen = try await Self.onOwnDatabase { url in
            let connection = try Connection(url)
            defer { connection.close() }
            let first = try migrator.migrate(on: connection).count
            let second = try migrator.migrate(on: connection).count
            let pending = migrator.pending(applied: try migrator.applied(on: connection)).count
            let owner = try connection.query(
                "select tableowner from pg_tables where schemaname = 'auth' and tablename = 'users'"
            ).scalar
            return (first: first, second: second, pending: pending, owner: owner)
        }
        #expect(seen.first == migrator.versioned.count + migrator.repeatable.count)
        #expect(seen.second == 0)
        #expect(seen.pending == 0)
        #expect(seen.owner == "liftbase_owner")
    }

    @Test("two migrate runs started at once apply each migration exactly once")
    func concurrentRuns() async throws {
        let migrator = try Migrator(directory: TestDatabase.sqlDirectory)
        let seen = try await Self.onOwnDatabase { url in
            let results = LockedResults()
            let group = DispatchGroup()
            for _ in 0..<2 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    do {
                        let connection = try Connection(url)
                        defer { connection.close() }
                        results.append(.success(try migrator.migrate(on: connection).map(\.name)))
                    } catch {
                        results.append(.failure(error))
                    }
                }
            }
            group.wait()
            let connection = try Connection(url)
            defer { connection.close() }
            let rows = try connection.query("select count(*), count(distinct name) from liftbase_meta.migrations").rows[
                0
            ]
            return (counts: try results.values.map { try $0.get().count }, rows: rows)
        }
        #expect(seen.counts.count == 2)
        // One run applied everything, the other waited on the lock and found nothing.
        #expect(seen.counts.sorted() == [0, migrator.versioned.count + migrator.repeatable.count])
        #expect(seen.rows[0] == seen.rows[1])
        #expect(seen.rows[0] == String(migrator.versioned.count + migrator.repeatable.count))
    }

    @Test("a changed or vanished migration is refused by --verify and by migrate")
    func verifyRefusesChanges() async throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let first = try #require(try Migrator(directory: copy).versioned.first)
        let seen = try await Self.onOwnDatabase { url in
            let connection = try Connection(url)
            defer { connection.close() }
            try Migrator(directory: copy).migrate(on: connection)
            let path = copy + "/" + first.name
            try (first.sql + "\n-- edited after it was applied\n").write(
                toFile: path,
                atomically: true,
                encoding: .utf8
            )
            let changed = try Migrator(directory: copy)
            let modified = changed.modified(applied: try changed.applied(on: connection))
            let refused = Self.isMigratorError { try changed.migrate(on: connection) }
            let cli = try runCLI(["migrate", "--verify", "--database-url", url, "--sql-dir", copy])
            try FileManager.default.removeItem(atPath: path)
            let vanished = try Migrator(directory: copy)
            return (
                modified: modified, refused: refused, cli: cli,
                vanished: vanished.modified(applied: try vanished.applied(on: connection))
            )
        }
        #expect(seen.modified == [first.name])
        #expect(seen.refused, "migrate ran over a changed migration")
        #expect(seen.cli.status == 1)
        #expect(seen.cli.stderr.contains(first.name))
        #expect(seen.vanished == [first.name])
    }

    @Test("an unchanged database passes --verify with exit 0; bad usage exits 2")
    func verifyPasses() throws {
        let ok = try runCLI([
            "migrate", "--verify", "--database-url", try TestDatabase.url(), "--sql-dir", TestDatabase.sqlDirectory,
        ])
        #expect(ok.status == 0)
        let usage = try runCLI(["migrate", "--status", "--verify"])
        #expect(usage.status == 2)
    }

    @Test("a changed function file is re-applied")
    func reappliesChangedFunctions() async throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let file = try #require(try Migrator(directory: copy).repeatable.first)
        let applied = try await Self.onOwnDatabase { url in
            let connection = try Connection(url)
            defer { connection.close() }
            try Migrator(directory: copy).migrate(on: connection)
            try (file.sql + "\n-- a harmless change\n").write(
                toFile: copy + "/" + file.name,
                atomically: true,
                encoding: .utf8
            )
            return try Migrator(directory: copy).migrate(on: connection).map(\.name)
        }
        #expect(applied == [file.name])
    }

    @Test("function files are applied together: a failing one leaves every function as it was")
    func functionFilesApplyTogether() async throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let files = try Migrator(directory: copy).repeatable
        let first = try #require(files.first)
        let last = try #require(files.last)
        let seen = try await Self.onOwnDatabase { url in
            let connection = try Connection(url)
            defer { connection.close() }
            try Migrator(directory: copy).migrate(on: connection)
            // A change early in the order, which would have committed on its own, and a
            // broken file after it.
            try (first.sql + "\ncreate function app.migrator_probe() returns integer language sql as 'select 1';\n")
                .write(toFile: copy + "/" + first.name, atomically: true, encoding: .utf8)
            try (last.sql + "\nthis is not sql;\n").write(
                toFile: copy + "/" + last.name,
                atomically: true,
                encoding: .utf8
            )
            let failed = Self.isMigratorError { try Migrator(directory: copy).migrate(on: connection) }
            let probeGone = try connection.query("select to_regprocedure('app.migrator_probe()') is null").scalar
            return (failed: failed, probeGone: probeGone)
        }
        #expect(seen.failed, "a broken function file was applied")
        #expect(seen.probeGone == "t")
    }

    @Test("a renamed function file is applied under its new name and its old record is forgotten")
    func renamedFunctionFileIsPruned() async throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let file = try #require(try Migrator(directory: copy).repeatable.first)
        let renamed = "functions/zz_renamed.sql"
        let seen = try await Self.onOwnDatabase { url in
            let connection = try Connection(url)
            defer { connection.close() }
            try Migrator(directory: copy).migrate(on: connection)
            try FileManager.default.moveItem(atPath: copy + "/" + file.name, toPath: copy + "/" + renamed)
            let migrator = try Migrator(directory: copy)
            let applied = try migrator.migrate(on: connection).map(\.name)
            let records = try migrator.applied(on: connection)
            return (
                applied: applied, oldKept: records.contains { $0.name == file.name },
                allApplied: migrator.status(applied: records).allSatisfy { $0.state == .applied }
            )
        }
        #expect(seen.applied == [renamed])
        #expect(!seen.oldKept)
        #expect(seen.allApplied)
    }

    @Test("a folder among the function files is refused, not skipped")
    func subfolderIsRefused() throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.createDirectory(atPath: copy + "/functions/nested", withIntermediateDirectories: false)
        let error = try #require(throws: Migrator.MigratorError.self) { try Migrator(directory: copy) }
        #expect(error.description.contains("functions/nested is a folder"))
    }

    /// `work` on an empty database of its own (distributed on Citus), off the cooperative
    /// pool: a migration there takes seconds.
    static func onOwnDatabase<T: Sendable>(_ work: @escaping @Sendable (String) throws -> T) async throws -> T {
        try await TestDatabase.withOwnDatabase { url in
            try await TestDatabase.offThePool { try TestDatabase.oneMigrationAtATime { try work(url) } }
        }
    }

    /// Whether `work` throws the migrator's own error (not any error).
    static func isMigratorError(_ work: () throws -> some Any) -> Bool {
        do {
            _ = try work()
            return false
        } catch is Migrator.MigratorError {
            return true
        } catch {
            return false
        }
    }

    func copiedSQLDirectory() throws -> String {
        let copy = NSTemporaryDirectory() + "liftbase-sql-" + TestDatabase.uniqueSuffix()
        try FileManager.default.copyItem(atPath: TestDatabase.sqlDirectory, toPath: copy)
        return copy
    }
}

final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<[String], any Error>] = []
    func append(_ result: Result<[String], any Error>) { lock.withLock { stored.append(result) } }
    var values: [Result<[String], any Error>] { lock.withLock { stored } }
}

/// Runs the built `liftbase` executable (beside the test bundle) and captures its output.
