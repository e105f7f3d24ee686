import ArgumentParser
import Foundation
import LiftbaseCore
import PQ

struct Liftbase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "liftbase",
        abstract: "Liftbase: the backend for strength-training and nutrition apps.",
        subcommands: [
            Serve.self, Migrate.self, UserCommand.self, InviteCommand.self, OutboxCommand.self, DeliverCommand.self,
            MetricsCommand.self,
            ImportCommand.self,
            ExportCommand.self, PhotosCommand.self, SecurityCommand.self, ReportCommand.self, SummariesCommand.self,
            SyncCommand.self,
            OpenAPICommand.self,
        ],
        defaultSubcommand: Serve.self
    )
}

/// Options every command that talks to the database shares. Flags override the environment.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "libpq conninfo or URI (default: $DATABASE_URL).")
    var databaseURL: String?

    @Option(
        name: .customLong("sql-dir"),
        help: "Folder with bootstrap.sql, migrations/ and functions/ (default: $LIFTBASE_SQL_DIR or ./sql)."
    )
    var sqlDirectory: String?

    func configuration() throws -> LiftbaseCore.Configuration {
        var configuration = try LiftbaseCore.Configuration()
        if let databaseURL { configuration.databaseURL = databaseURL }
        if let sqlDirectory { configuration.sqlDirectory = sqlDirectory }
        return configuration
    }

    /// An administrative connection for CLI work, acting as the owner role.
    func ownerConnection() throws -> Connection {
        let connection = try Connection(try configuration().requireDatabaseURL())
        // Two statements, not one string: on Citus a SET ROLE inside a multi-statement query
        // (an implicit transaction block) is sent on to the workers, which refuse it.
        try connection.execute("set role liftbase_owner")
        try connection.execute(LiftbaseCore.Configuration.sessionSetup)
        return connection
    }
}

/// A failure to report on one line with exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@main
enum Main {
    static func main() async {
        do {
            var command = try Liftbase.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(reporting: error)
        }
    }

    /// Exit codes: 0 ok, 1 failure with a one-line reason on stderr, 2 usage.
    static func exit(reporting error: any Error) -> Never {
        let code = Liftbase.exitCode(for: error)
        if code == .success {
            print(Liftbase.fullMessage(for: error))
            Foundation.exit(0)
        }
        if code == .validationFailure {
            FileHandle.standardError.write(Data((Liftbase.fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
        if error is ExitCode { Foundation.exit(code.rawValue) }
        let reason: String
        switch error {
        case let error as CustomStringConvertible: reason = error.description
        default: reason = "\(error)"
        }
        let oneLine = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("liftbase: \(oneLine)\n".utf8))
        Foundation.exit(1)
    }
}
