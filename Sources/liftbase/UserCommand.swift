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

/// `liftbase outbox ...`: messages (password reset tokens) waiting for a mailer.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List and acknowledge queued messages.",
        subcommands: [List.self, Ack.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List pending messages.")
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let result = try database.ownerConnection().query(
                "select id::text, kind, recipient, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), payload::text from auth.outbox_pending()"
            )
            printTable(header: ["id", "kind", "recipient", "created_at", "payload"], rows: result.rows)
        }
    }

    struct Ack: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark messages delivered.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Message ids.") var ids: [Int64]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give at least one message id") }
        }

        func run() throws {
            let connection = try database.ownerConnection()
            var missing: [Int64] = []
            for id in ids where try connection.query("select auth.outbox_ack($1)", [String(id)]).scalar != "t" {
                missing.append(id)
            }
            guard missing.isEmpty else {
                throw CommandFailure("no pending message with id \(missing.map(String.init).joined(separator: ", "))")
            }
            print("acknowledged \(ids.count) message(s)")
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
