import Foundation
import LiftbaseCore
import PQ
import Testing

@Suite("migrator")
struct MigratorTests {
    @Test("a fresh database is migrated once; a second run finds nothing to do")
    func migratesOnce() throws {
        try TestDatabase.withFreshDatabase { url in
            let migrator = try Migrator(directory: TestDatabase.sqlDirectory)
            let connection = try Connection(url)
            let first = try migrator.migrate(on: connection)
            #expect(first.count == migrator.versioned.count + migrator.repeatable.count)
            #expect(try migrator.migrate(on: connection).isEmpty)
            #expect(migrator.pending(applied: try migrator.applied(on: connection)).isEmpty)
            let owner = try connection.query(
                "select tableowner from pg_tables where schemaname = 'auth' and tablename = 'users'"
            ).scalar
            #expect(owner == "liftbase_owner")
        }
    }

    @Test("two migrate runs started at once apply each migration exactly once")
    func concurrentRuns() throws {
        try TestDatabase.withFreshDatabase { url in
            let migrator = try Migrator(directory: TestDatabase.sqlDirectory)
            let results = LockedResults()
            let group = DispatchGroup()
            for _ in 0..<2 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    do {
                        let connection = try Connection(url)
                        results.append(.success(try migrator.migrate(on: connection).map(\.name)))
                    } catch {
                        results.append(.failure(error))
                    }
                }
            }
            group.wait()
            let applied = try results.values.map { try $0.get() }
            #expect(applied.count == 2)
            // One run applied everything, the other waited on the lock and found nothing.
            #expect(applied.map(\.count).sorted() == [0, migrator.versioned.count + migrator.repeatable.count])
            let rows = try Connection(url).query("select count(*), count(distinct name) from liftbase_meta.migrations")
                .rows[0]
            #expect(rows[0] == rows[1])
            #expect(rows[0] == String(migrator.versioned.count + migrator.repeatable.count))
        }
    }

    @Test("a changed or vanished migration is refused by --verify and by migrate")
    func verifyRefusesChanges() throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try TestDatabase.withFreshDatabase { url in
            let connection = try Connection(url)
            try Migrator(directory: copy).migrate(on: connection)

            let first = try #require(try Migrator(directory: copy).versioned.first)
            let path = copy + "/" + first.name
            try (first.sql + "\n-- edited after it was applied\n").write(
                toFile: path,
                atomically: true,
                encoding: .utf8
            )
            let changed = try Migrator(directory: copy)
            #expect(changed.modified(applied: try changed.applied(on: connection)) == [first.name])
            #expect(throws: Migrator.MigratorError.self) { try changed.migrate(on: connection) }

            let cli = try runCLI(["migrate", "--verify", "--database-url", url, "--sql-dir", copy])
            #expect(cli.status == 1)
            #expect(cli.stderr.contains(first.name))

            try FileManager.default.removeItem(atPath: path)
            let vanished = try Migrator(directory: copy)
            #expect(vanished.modified(applied: try vanished.applied(on: connection)) == [first.name])
        }
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
    func reappliesChangedFunctions() throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try TestDatabase.withFreshDatabase { url in
            let connection = try Connection(url)
            try Migrator(directory: copy).migrate(on: connection)
            let file = try #require(try Migrator(directory: copy).repeatable.first)
            try (file.sql + "\n-- a harmless change\n").write(
                toFile: copy + "/" + file.name,
                atomically: true,
                encoding: .utf8
            )
            let applied = try Migrator(directory: copy).migrate(on: connection)
            #expect(applied.map(\.name) == [file.name])
        }
    }

    @Test("function files are applied together: a failing one leaves every function as it was")
    func functionFilesApplyTogether() throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try TestDatabase.withFreshDatabase { url in
            let connection = try Connection(url)
            try Migrator(directory: copy).migrate(on: connection)
            let files = try Migrator(directory: copy).repeatable
            let first = try #require(files.first)
            let last = try #require(files.last)
            // A change early in the order, which would have committed on its own, and a
            // broken file after it.
            try (first.sql + "\ncreate function app.migrator_probe() returns integer language sql as 'select 1';\n")
                .write(toFile: copy + "/" + first.name, atomically: true, encoding: .utf8)
            try (last.sql + "\nthis is not sql;\n").write(
                toFile: copy + "/" + last.name,
                atomically: true,
                encoding: .utf8
            )
            #expect(throws: Migrator.MigratorError.self) { try Migrator(directory: copy).migrate(on: connection) }
            #expect(try connection.query("select to_regprocedure('app.migrator_probe()') is null").scalar == "t")
        }
    }

    @Test("a renamed function file is applied under its new name and its old record is forgotten")
    func renamedFunctionFileIsPruned() throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try TestDatabase.withFreshDatabase { url in
            let connection = try Connection(url)
            try Migrator(directory: copy).migrate(on: connection)
            let file = try #require(try Migrator(directory: copy).repeatable.first)
            let renamed = "functions/zz_renamed.sql"
            try FileManager.default.moveItem(atPath: copy + "/" + file.name, toPath: copy + "/" + renamed)
            let migrator = try Migrator(directory: copy)
            #expect(try migrator.migrate(on: connection).map(\.name) == [renamed])
            let applied = try migrator.applied(on: connection)
            #expect(!applied.contains { $0.name == file.name })
            #expect(migrator.status(applied: applied).allSatisfy { $0.state == .applied })
        }
    }

    @Test("a folder among the function files is refused, not skipped")
    func subfolderIsRefused() throws {
        let copy = try copiedSQLDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.createDirectory(atPath: copy + "/functions/nested", withIntermediateDirectories: false)
        let error = try #require(throws: Migrator.MigratorError.self) { try Migrator(directory: copy) }
        #expect(error.description.contains("functions/nested is a folder"))
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
/// `runCLI`, waited for off the cooperative pool the suite's tests share (a child process
/// may take seconds, more on Citus).
func runCLIOffThePool(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await TestDatabase.offThePool { try runCLI(arguments) }
}

func runCLI(
    _ arguments: [String],
    environment: [String: String] = [:],
    unsetting unset: [String] = []
) throws -> (status: Int32, stdout: String, stderr: String) {
    let binary = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/liftbase")
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        .filter { !unset.contains($0.key) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}
