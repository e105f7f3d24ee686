import ArgumentParser
import Foundation
import LiftbaseCore
import PQ

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending migrations and changed function files.",
        discussion: "Safe to start twice at once: the second run waits for the first, then finds nothing to do."
    )

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "List every migration and function file with its state; change nothing.")
    var status = false

    @Flag(name: .customLong("dry-run"), help: "List what would be applied; change nothing.")
    var dryRun = false

    @Flag(help: "Exit 1 naming any applied migration whose file changed or vanished.")
    var verify = false

    @Flag(
        name: .customLong("without-builtin-catalogs"),
        help: "Do not load the shipped USDA foods and exercises (default: $LIFTBASE_BUILTIN_CATALOGS, on)."
    )
    var withoutBuiltinCatalogs = false

    func validate() throws {
        if [status, dryRun, verify].filter({ $0 }).count > 1 {
            throw ValidationError("use only one of --status, --dry-run, --verify")
        }
    }

    func run() throws {
        let configuration = try database.configuration()
        let migrator = try Migrator(directory: configuration.sqlDirectory)
        let connection = try Connection(try configuration.requireDatabaseURL())
        defer { connection.close() }

        if status {
            for entry in migrator.status(applied: try migrator.applied(on: connection)) {
                print(
                    [
                        entry.state.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0), entry.name,
                        entry.appliedAt ?? "",
                    ]
                    .joined(separator: "  ")
                )
            }
        } else if dryRun {
            let applied = try migrator.applied(on: connection)
            let modified = migrator.modified(applied: applied)
            guard modified.isEmpty else { throw Migrator.MigratorError.modified(modified) }
            let due = migrator.pending(applied: applied)
            if due.isEmpty { print("nothing to apply") }
            for file in due { print("would apply \(file.name)") }
        } else if verify {
            let modified = migrator.modified(applied: try migrator.applied(on: connection))
            guard modified.isEmpty else { throw Migrator.MigratorError.modified(modified) }
            print("ok: every applied migration matches its file")
        } else {
            let applied = try migrator.migrate(on: connection) { print($0) }
            print(applied.isEmpty ? "nothing to apply" : "applied \(applied.count) file(s)")
            if configuration.loadsBuiltinCatalogs && !withoutBuiltinCatalogs {
                let folder = URL(fileURLWithPath: configuration.sqlDirectory).appendingPathComponent("data")
                try BuiltinCatalogs(database: database, folder: folder).load()
            }
        }
    }
}
