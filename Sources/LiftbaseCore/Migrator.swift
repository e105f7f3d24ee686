import Foundation
import PQ

/// Applies `sql/migrations` (versioned, forward-only, immutable once applied) and
/// `sql/functions` (repeatable: re-applied when their checksum changes, and after any
/// versioned migration ran, since a migration may have changed what they depend on).
///
/// Runs on the caller's thread with its own connection (the CLI's), never on the pool.
public struct Migrator: Sendable {
    public enum Kind: String, Sendable { case versioned, repeatable }

    public struct File: Sendable, Equatable {
        public let name: String
        public let kind: Kind
        public let sql: String
        public let checksum: String
    }

    public struct Applied: Sendable {
        public let name: String
        public let kind: Kind
        public let checksum: String
        public let appliedAt: String
    }

    public enum State: String, Sendable { case applied, pending, changed, vanished }

    public struct Entry: Sendable {
        public let name: String
        public let kind: Kind
        public let state: State
        public let appliedAt: String?
    }

    public enum MigratorError: Error, CustomStringConvertible {
        case unreadable(String)
        case modified([String])
        case failed(file: String, PostgresError)

        public var description: String {
            switch self {
            case .unreadable(let reason): return reason
            case .modified(let names):
                return
                    "applied migrations changed or vanished: \(names.joined(separator: ", ")) (add a new migration instead)"
            case .failed(let file, let error):
                return "\(file): \(error.message)\(error.detail.map { " (\($0))" } ?? "")"
            }
        }
    }

    /// Serializes concurrent `liftbase migrate` runs: the second waits, then finds nothing to do.
    static let advisoryLockKey = 7_465_601_234_001

    public let bootstrap: String
    public let versioned: [File]
    public let repeatable: [File]

    public init(directory: String) throws {
        let root = URL(fileURLWithPath: directory)
        guard let bootstrap = try? String(contentsOf: root.appendingPathComponent("bootstrap.sql"), encoding: .utf8)
        else {
            throw MigratorError.unreadable("no bootstrap.sql in \(directory) (set LIFTBASE_SQL_DIR)")
        }
        self.bootstrap = bootstrap
        versioned = try Migrator.files(in: root.appendingPathComponent("migrations"), kind: .versioned)
        repeatable = Migrator.inApplyingOrder(
            try Migrator.files(in: root.appendingPathComponent("functions"), kind: .repeatable)
        )
    }

    /// Function files by name, the `liftbase_meta_*` ones first: they hold the helpers the
    /// others call as they are applied (a function's form on Citus, said beside it).
    static func inApplyingOrder(_ files: [File]) -> [File] {
        let first = "functions/liftbase_meta_"
        return files.filter { $0.name.hasPrefix(first) } + files.filter { !$0.name.hasPrefix(first) }
    }

    static func files(in folder: URL, kind: Kind) throws -> [File] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw MigratorError.unreadable("cannot read \(folder.path): \(error.localizedDescription)")
        }
        // A file in a subfolder would never be applied: refuse the layout rather than skip it.
        for name in names.sorted() {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder),
                isFolder.boolValue
            {
                throw MigratorError.unreadable(
                    "\(folder.path)/\(name) is a folder: \(kind == .versioned ? "migrations" : "function files") must sit directly in \(folder.lastPathComponent)/"
                )
            }
        }
        return try names.filter { $0.hasSuffix(".sql") }.sorted().map { name in
            let sql = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return File(
                name: "\(kind == .versioned ? "migrations" : "functions")/\(name)",
                kind: kind,
                sql: sql,
                checksum: SHA256.hex(sql)
            )
        }
    }

    // MARK: Reading state

    /// What the database has applied; empty when it was never migrated.
    public func applied(on connection: Connection) throws -> [Applied] {
        let exists = try connection.query("select to_regclass('liftbase_meta.migrations') is not null").scalar
        guard exists == "t" else { return [] }
        return try connection.query(
            "select name, kind, checksum, applied_at::text from liftbase_meta.migrations order by name"
        ).rows.map { row in
            Applied(name: row[0]!, kind: Kind(rawValue: row[1]!) ?? .versioned, checksum: row[2]!, appliedAt: row[3]!)
        }
    }

    /// Every file and every applied entry, with its state.
    public func status(applied: [Applied]) -> [Entry] {
        let byName = Dictionary(applied.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var entries = (versioned + repeatable).map { file -> Entry in
            guard let record = byName[file.name] else {
                return Entry(name: file.name, kind: file.kind, state: .pending, appliedAt: nil)
            }
            if record.checksum == file.checksum {
                return Entry(name: file.name, kind: file.kind, state: .applied, appliedAt: record.appliedAt)
            }
            // A changed function file is simply due again; a changed migration is an error.
            return Entry(
                name: file.name,
                kind: file.kind,
                state: file.kind == .versioned ? .changed : .pending,
                appliedAt: record.appliedAt
            )
        }
        let known = Set((versioned + repeatable).map(\.name))
        entries += applied.filter { !known.contains($0.name) }.map {
            Entry(name: $0.name, kind: $0.kind, state: .vanished, appliedAt: $0.appliedAt)
        }
        return entries
    }

    /// Applied versioned migrations whose file changed or vanished.
    public func modified(applied: [Applied]) -> [String] {
        status(applied: applied).filter { entry in
            entry.kind == .versioned && (entry.state == .changed || entry.state == .vanished)
        }.map(\.name)
    }

    /// Records of function files that are gone (renamed or removed): a migrate run deletes
    /// them, so the records list exactly the files there are.
    public func vanishedFunctionFiles(applied: [Applied]) -> [String] {
        let known = Set(repeatable.map(\.name))
        return applied.filter { $0.kind == .repeatable && !known.contains($0.name) }.map(\.name)
    }

    /// Files that a migrate run would apply now, in order.
    public func pending(applied: [Applied]) -> [File] {
        let byName = Dictionary(applied.map { ($0.name, $0.checksum) }, uniquingKeysWith: { first, _ in first })
        let versionedDue = versioned.filter { byName[$0.name] == nil }
        let repeatableDue =
            versionedDue.isEmpty
            ? repeatable.filter { byName[$0.name] != $0.checksum }
            : repeatable
        return versionedDue + repeatableDue
    }

    // MARK: Applying

    /// Bootstraps roles and schemas, then applies what is pending as the owner role: each
    /// migration in its own transaction, then every due function file in one transaction,
    /// so servers still running see the old set of functions or the new one, never a mix
    /// (a function of the new set calling one that is not there yet). Refuses to run when
    /// an applied migration changed.
    @discardableResult
    public func migrate(on connection: Connection, progress: (String) -> Void = { _ in }) throws -> [File] {
        try connection.query("select pg_advisory_lock($1)", [String(Migrator.advisoryLockKey)])
        defer { _ = try? connection.query("select pg_advisory_unlock($1)", [String(Migrator.advisoryLockKey)]) }

        // One statement per transaction: on Citus the roles must be committed on every node
        // before anything runs as them (Citus connects to the workers as the current role),
        // and the schemas before the table made in them. Every statement is idempotent.
        do {
            for statement in SQLStatements.split(bootstrap) { try connection.execute(statement) }
        } catch let error as PostgresError {
            throw MigratorError.failed(file: "bootstrap.sql", error)
        }
        let applied = try applied(on: connection)
        let modified = modified(applied: applied)
        guard modified.isEmpty else { throw MigratorError.modified(modified) }

        let due = pending(applied: applied)
        // On Citus a migration runs one statement at a time (in its transaction, and with
        // the setting of `apply` below): a DDL
        // command on a distributed table is sent on to the workers with the text of the
        // query that held it, and a text of several statements is refused there ("cannot
        // insert multiple commands into a prepared statement"). A cluster distributed before
        // a migration that alters its tables would otherwise never upgrade.
        let onCitus =
            try connection.query("select exists (select from pg_extension where extname = 'citus')").scalar == "t"
        for migration in due where migration.kind == .versioned {
            try apply([migration], on: connection, oneStatementAtATime: onCitus, progress: progress)
        }
        let functions = due.filter { $0.kind == .repeatable }
        if !functions.isEmpty { try apply(functions, on: connection, progress: progress) }
        let vanished = vanishedFunctionFiles(applied: applied)
        if !vanished.isEmpty {
            try connection.query(
                "delete from liftbase_meta.migrations where kind = 'repeatable' and name = any($1::text[])",
                ["{" + vanished.map { "\"\($0)\"" }.joined(separator: ",") + "}"]
            )
            for name in vanished { progress("forgot \(name) (no longer a function file)") }
        }
        try distributeOnCitus(on: connection, progress: progress)
        return due
    }

    /// On a database with the `citus` extension, distributes what is not distributed yet
    /// (migration 0060_citus_distribution.sql; idempotent, docs/scaling.md). Runs as the
    /// login, not as the owner role: Citus needs to alter the database's settings.
    private func distributeOnCitus(on connection: Connection, progress: (String) -> Void) throws {
        let installed = try connection.query("select exists (select from pg_extension where extname = 'citus')").scalar
        guard installed == "t" else { return }
        do {
            let outcome = try connection.query("select liftbase_meta.distribute_on_citus()").scalar
            progress("citus: \(outcome ?? "")")
        } catch let error as PostgresError {
            throw MigratorError.failed(file: "0060_citus_distribution.sql (distribute_on_citus)", error)
        }
    }

    /// Applies `files` and records them in one transaction; progress lines are printed
    /// once it committed. `oneStatementAtATime`: each file's statements are sent one by one.
    private func apply(
        _ files: [File],
        on connection: Connection,
        oneStatementAtATime: Bool = false,
        progress: (String) -> Void
    ) throws {
        var current = files[0].name
        var lines: [String] = []
        do {
            try connection.execute("begin")
            try connection.execute("set local role liftbase_owner")
            // On a cluster distributed before, a table a migration makes with a key to a
            // reference table (auth.users) would become a Citus local table at once, whose
            // row-level security policies Citus refuses, and which the distribution then
            // leaves on the coordinator. Kept a plain table, it is distributed by user_id at
            // the end of the run (distributeOnCitus), as the first distribution does.
            if oneStatementAtATime {
                try connection.execute("set local citus.enable_local_reference_table_foreign_keys = off")
            }
            // Function files may reference each other in any order; plpgsql_check in
            // Scripts/test validates the bodies once all are in place.
            if files[0].kind == .repeatable { try connection.execute("set local check_function_bodies = off") }
            for file in files {
                current = file.name
                let started = ContinuousClock.now
                for statement in oneStatementAtATime ? SQLStatements.split(file.sql) : [file.sql] {
                    try connection.execute(statement)
                }
                let elapsed = ContinuousClock.now - started
                try connection.query(
                    """
                    insert into liftbase_meta.migrations (name, kind, checksum, applied_at, duration_ms)
                    values ($1, $2, $3, now(), $4)
                    on conflict (name) do update
                      set checksum = excluded.checksum, applied_at = excluded.applied_at, duration_ms = excluded.duration_ms
                    """,
                    [file.name, file.kind.rawValue, file.checksum, String(format: "%.3f", elapsed.milliseconds)]
                )
                lines.append("applied \(file.name) (\(String(format: "%.1f", elapsed.milliseconds)) ms)")
            }
            current = files.count == 1 ? current : "commit of \(files.count) function files"
            try connection.execute("commit")
        } catch let error as PostgresError {
            _ = try? connection.execute("rollback")
            throw MigratorError.failed(file: current, error)
        }
        for line in lines { progress(line) }
    }
}

extension Duration {
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
