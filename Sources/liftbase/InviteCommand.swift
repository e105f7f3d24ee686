import ArgumentParser
import Foundation
import PQ

/// `liftbase invite ...`: invitations to sign up, for a server whose registration is by
/// invitation only (liftbase.registration, docs/security.md). The rules are
/// sql/functions/auth_registration.sql's.
struct InviteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Invite people to sign up.",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invite one address: queues an invitation mail and prints its token (valid --days, once)."
        )
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Email address.") var email: String
        @Option(help: "Days the invitation stays valid.") var days = 7

        func validate() throws {
            guard (1...90).contains(days) else { throw ValidationError("--days must be 1 to 90") }
        }

        func run() throws {
            let invitation = try database.ownerConnection().query(
                "select i ->> 'email', i ->> 'token', i ->> 'expires_at' from auth.create_invitation($1, $2::integer) as i",
                [email, String(days)]
            ).rows[0]
            print("invited \(invitation[0] ?? email) until \(invitation[2] ?? "")")
            print("token: \(invitation[1] ?? "")")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the invitations not used yet.")
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let result = try database.ownerConnection().query(
                """
                select email, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                       to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), state
                  from auth.pending_invitations()
                """
            )
            printTable(header: ["email", "created_at", "expires_at", "state"], rows: result.rows)
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke the open invitations of an address.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Email address.") var email: String

        func run() throws {
            let revoked = try database.ownerConnection().query("select auth.revoke_invitations($1)", [email]).scalar
            print("revoked \(revoked ?? "0") invitation(s) of \(email)")
        }
    }
}
