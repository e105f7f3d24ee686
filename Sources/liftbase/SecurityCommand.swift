import ArgumentParser
import Foundation
import PQ

/// `liftbase security prune`: each account's security log past its retention
/// (`liftbase.security_log_retention`, 180 days; docs/security.md) is dropped, also for the
/// accounts that log nothing new. Run it daily with the other prunes; idempotent.
struct SecurityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "security",
        abstract: "The accounts' security logs.",
        subcommands: [Prune.self]
    )

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop security events older than the retention, for every account."
        )
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let connection = try database.ownerConnection()
            defer { connection.close() }
            let started = Date()
            let pruned = try connection.query("select auth.prune_security_events()").rows[0][0] ?? "0"
            print(String(format: "pruned %@ security events (%.1f s)", pruned, Date().timeIntervalSince(started)))
        }
    }
}
