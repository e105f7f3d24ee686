import ArgumentParser
import Foundation
import PQ

/// `liftbase user ...`: operator account management through the auth.admin_* functions.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage accounts.",
        subcommands: [Create.self, List.self, Show.self, Disable.self, Enable.self, Delete.self, ResetPassword.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account (prints a generated password when none is given)."
        )
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Email address.") var email: String
        @Option(help: "Password (default: generated and printed once).") var password: String?
        @Option(name: .customLong("display-name")) var displayName: String?

        func run() throws {
            let password = password ?? generatedPassword()
            let connection = try database.ownerConnection()
            let user = try connection.query(
                "select auth.admin_create_user($1, $2, $3)::text",
                [email, password, displayName]
            ).scalar
            print(user ?? "")
            if self.password == nil { print("password: \(password)") }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let result = try database.ownerConnection().query(
                """
                select email, id::text, coalesce(display_name, ''), to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                       case when disabled_at is null then 'active' else 'disabled' end, active_sessions::text
                  from auth.admin_users()
                """
            )
            printTable(header: ["email", "id", "display_name", "created_at", "state", "sessions"], rows: result.rows)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one account as JSON.")
        @OptionGroup var database: DatabaseOptions
        @Argument var email: String

        func run() throws {
            print(
                try database.ownerConnection().query("select jsonb_pretty(auth.admin_show_user($1))", [email]).scalar
                    ?? ""
            )
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an account and end its sessions.")
        @OptionGroup var database: DatabaseOptions
        @Argument var email: String

        func run() throws {
            _ = try database.ownerConnection().query("select auth.admin_set_disabled($1, true)", [email])
            print("disabled \(email)")
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled account.")
        @OptionGroup var database: DatabaseOptions
        @Argument var email: String

        func run() throws {
            _ = try database.ownerConnection().query("select auth.admin_set_disabled($1, false)", [email])
            print("enabled \(email)")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an account and every row it owns.")
        @OptionGroup var database: DatabaseOptions
        @Argument var email: String
        @Flag(help: "Confirm the deletion.") var yes = false

        func validate() throws {
            guard yes else { throw ValidationError("deleting an account cannot be undone: add --yes") }
        }

        func run() throws {
            _ = try database.ownerConnection().query("select auth.admin_delete_user($1)", [email])
            print("deleted \(email)")
        }
    }

    struct ResetPassword: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Set a new password (generated when none is given) and end every session."
        )
        @OptionGroup var database: DatabaseOptions
        @Argument var email: String
        @Option(help: "New password (default: generated and printed once).") var password: String?

        func run() throws {
            let password = password ?? generatedPassword()
            _ = try database.ownerConnection().query("select auth.admin_reset_password($1, $2)", [email, password])
            print(self.password == nil ? "password: \(password)" : "password changed for \(email)")
        }
    }
}

/// `liftbase outbox ...`: the messages `liftbase deliver` sends (reset mails, webhooks):
/// what waits, what died after its last try, and the operator's hand on them.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Inspect and manage the outbox: pending mails, dead letters, retries.",
        subcommands: [List.self, Ack.self, Retry.self, Drop.self, Prune.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List pending mails with their payload (to deliver by hand), or every message by state."
        )
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Dead letters: messages that failed their last try.") var dead = false
        @Flag(help: "Every message, delivered ones too.") var all = false

        func validate() throws {
            if dead && all { throw ValidationError("give --dead or --all, not both") }
        }

        func run() throws {
            let connection = try database.ownerConnection()
            guard dead || all else {
                let result = try connection.query(
                    "select id::text, kind, recipient, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), payload::text from auth.outbox_pending()"
                )
                printTable(header: ["id", "kind", "recipient", "created_at", "payload"], rows: result.rows)
                return
            }
            let result = try connection.query(
                """
                select id::text, channel, kind, recipient, attempts::text, coalesce(last_status::text, ''),
                       coalesce(left(last_error, 80), ''),
                       case when delivered_at is not null then 'delivered' when dead_at is not null then 'dead'
                            else 'pending' end
                  from auth.outbox_list($1)
                """,
                [dead ? "dead" : "all"]
            )
            printTable(
                header: ["id", "channel", "kind", "recipient", "tries", "status", "last_error", "state"],
                rows: result.rows
            )
        }
    }

    struct Ack: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark mails delivered (sent by hand).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Message ids.") var ids: [Int64]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give at least one message id") }
        }

        func run() throws {
            try OutboxCommand.each(ids, database: database, function: "auth.outbox_ack", missing: "no pending message")
            print("acknowledged \(ids.count) message(s)")
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give dead letters their tries again, due now.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Message ids.") var ids: [Int64]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give at least one message id") }
        }

        func run() throws {
            try OutboxCommand.each(ids, database: database, function: "auth.outbox_retry", missing: "no dead letter")
            print("retrying \(ids.count) message(s)")
        }
    }

    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove undelivered messages (pending or dead).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Message ids.") var ids: [Int64]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give at least one message id") }
        }

        func run() throws {
            try OutboxCommand.each(
                ids,
                database: database,
                function: "auth.outbox_drop",
                missing: "no undelivered message"
            )
            print("dropped \(ids.count) message(s)")
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove delivered messages and dead letters older than --days (run daily)."
        )
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Age in days.") var days = 30

        func validate() throws {
            guard (1...3650).contains(days) else { throw ValidationError("--days must be 1 to 3650") }
        }

        func run() throws {
            let pruned = try database.ownerConnection().query(
                "select auth.outbox_prune(make_interval(days => $1::integer))",
                [String(days)]
            ).scalar
            print("pruned \(pruned ?? "0") message(s)")
        }
    }

    /// Calls `function(id)` for each id; fails naming the ids it answered false for.
    static func each(_ ids: [Int64], database: DatabaseOptions, function: String, missing: String) throws {
        let connection = try database.ownerConnection()
        var absent: [Int64] = []
        for id in ids where try connection.query("select \(function)($1)", [String(id)]).scalar != "t" {
            absent.append(id)
        }
        guard absent.isEmpty else {
            throw CommandFailure("\(missing) with id \(absent.map(String.init).joined(separator: ", "))")
        }
    }
}

func generatedPassword() -> String {
    let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    var generator = SystemRandomNumberGenerator()
    return String((0..<20).map { _ in alphabet.randomElement(using: &generator)! })
}

func printTable(header: [String], rows: [[String?]]) {
    let cells = [header] + rows.map { $0.map { $0 ?? "" } }
    let widths = header.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
    for row in cells {
        print(
            row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        )
    }
}
