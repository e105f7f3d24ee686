import Foundation

/// Settings read from the environment; command-line flags override them.
public struct Configuration: Sendable {
    /// libpq conninfo or URI, passed to libpq untouched (multi-host, sslmode, pgpass...).
    public var databaseURL: String?
    public var host: String
    public var port: Int
    public var poolSize: Int
    public var poolAcquireTimeout: Duration
    /// The role the server acts as after connecting (RLS applies to it).
    public var apiRole: String
    /// Folder holding bootstrap.sql, migrations/ and functions/.
    public var sqlDirectory: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        databaseURL = environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        host = environment["LIFTBASE_HOST"] ?? "127.0.0.1"
        port = environment["LIFTBASE_PORT"].flatMap(Int.init) ?? 8080
        poolSize = environment["LIFTBASE_POOL_SIZE"].flatMap(Int.init) ?? 10
        poolAcquireTimeout = .milliseconds(environment["LIFTBASE_POOL_TIMEOUT_MS"].flatMap(Int.init) ?? 5000)
        apiRole = environment["LIFTBASE_DB_ROLE"] ?? "liftbase_api"
        sqlDirectory = environment["LIFTBASE_SQL_DIR"] ?? Configuration.defaultSQLDirectory()
    }

    public func requireDatabaseURL() throws -> String {
        guard let databaseURL else { throw ConfigurationError.missing("DATABASE_URL is not set (or pass --database-url)") }
        return databaseURL
    }

    /// `sql` in the working directory, else `share/liftbase/sql` beside the executable's
    /// folder (the layout of the container image).
    static func defaultSQLDirectory() -> String {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: "sql/migrations") { return "sql" }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "liftbase").resolvingSymlinksInPath()
        let installed = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/liftbase/sql").path
        return fileManager.fileExists(atPath: installed) ? installed : "sql"
    }
}

public enum ConfigurationError: Error, CustomStringConvertible {
    case missing(String)
    public var description: String {
        switch self { case .missing(let what): return what }
    }
}
