import ArgumentParser
import Foundation
import PQ

/// `liftbase sync prune`: deletes kept in the change feed (tombstones) are dropped once older
/// than the retention (90 days, docs/sync.md); a device whose cursor is older then gets 410
/// `cursor_expired` and starts over. Run it daily (cron or a systemd timer); idempotent.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "The change feed devices catch up from.",
        subcommands: [Prune.self]
    )

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop the feed's tombstones older than the retention, for every account."
        )
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let connection = try database.ownerConnection()
            defer { connection.close() }
            let started = Date()
            let pruned = try connection.query("select app.prune_sync_tombstones()").rows[0][0] ?? "0"
            print(String(format: "pruned %@ tombstones (%.1f s)", pruned, Date().timeIntervalSince(started)))
        }
    }
}
