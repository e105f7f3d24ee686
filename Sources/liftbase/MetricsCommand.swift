import ArgumentParser
import Foundation
import PQ

/// `liftbase metrics recompute`: the daily job. Ages change, so targets and health metrics
/// are recomputed; a user gets new rows only when a value changed.
struct MetricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Health metrics maintenance.",
        subcommands: [Recompute.self]
    )

    struct Recompute: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Recompute targets and health metrics (run daily).")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Every account.") var all = false
        @Option(help: "One account, by email.") var user: String?
        @Option(name: .customLong("batch-size"), help: "Accounts per transaction.") var batchSize = 500

        func validate() throws {
            guard all != (user != nil) else { throw ValidationError("give either --all or --user EMAIL") }
            guard (1...10_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 10000") }
        }

        func run() throws {
            let connection = try database.ownerConnection()
            if let user {
                let changed = try connection.query(
                    "select app.recompute_targets(array[(auth.admin_find_user($1)).id])",
                    [user]
                ).scalar
                print(changed == "1" ? "recomputed \(user): new metrics" : "recomputed \(user): unchanged")
                return
            }
            let total =
                Int(try connection.query("select count(*) from auth.users where disabled_at is null").scalar ?? "0")
                ?? 0
            var done = 0
            var changed = 0
            var after = "00000000-0000-0000-0000-000000000000"
            let started = Date()
            while true {
                let ids = try connection.query(
                    "select id::text from auth.users where disabled_at is null and id > $1::uuid order by id limit $2",
                    [after, String(batchSize)]
                ).rows.compactMap { $0[0] }
                guard let last = ids.last else { break }
                let literal = "{" + ids.joined(separator: ",") + "}"
                changed +=
                    Int(try connection.query("select app.recompute_targets($1::uuid[])", [literal]).scalar ?? "0") ?? 0
                done += ids.count
                after = last
                print("\(done)/\(total) accounts, \(changed) with new metrics")
            }
            print(
                String(
                    format: "done: %d accounts in %.1f s, %d with new metrics",
                    done,
                    Date().timeIntervalSince(started),
                    changed
                )
            )
        }
    }
}
