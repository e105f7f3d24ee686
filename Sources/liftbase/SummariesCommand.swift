import ArgumentParser
import Foundation
import PQ

/// `liftbase summaries rebuild`: the per-user summaries that hot reads use instead of a
/// user's whole history (the foods each user logged, for search; the daily weights, for the
/// weight analytics; the personal records per exercise) are kept by every write in its own
/// transaction; this rebuilds them from the diary, the weigh-ins and the sessions, for one
/// account or all. Idempotent: after a bulk load done
/// around the API, or to check that nothing drifted.
struct SummariesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summaries",
        abstract: "Per-user summaries kept for the hot reads.",
        subcommands: [Rebuild.self]
    )

    struct Rebuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild the food-usage, daily-weight and records summaries from what they sum up."
        )
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Every account.") var all = false
        @Option(help: "One account, by email.") var user: String?

        func validate() throws {
            guard all != (user != nil) else { throw ValidationError("give either --all or --user EMAIL") }
        }

        func run() throws {
            let connection = try database.ownerConnection()
            defer { connection.close() }
            let started = Date()
            // One transaction: the summaries of a user are never seen half rebuilt.
            let result = try connection.query(
                """
                select app.rebuild_food_usage(u.id), app.rebuild_body_weight_days(u.id),
                       app.rebuild_exercise_records(u.id)
                  from (select case when $1::text is null then null
                                    else (auth.admin_find_user($1)).id end as id) as u
                """,
                [user]
            ).rows[0]
            print(
                String(
                    format: "rebuilt %@: %@ food-usage rows, %@ daily weights, %@ exercise records (%.1f s)",
                    user ?? "every account",
                    result[0] ?? "0",
                    result[1] ?? "0",
                    result[2] ?? "0",
                    Date().timeIntervalSince(started)
                )
            )
        }
    }
}
