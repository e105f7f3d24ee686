import Foundation
import Logging

/// Settings read from the environment; command-line flags override them. A setting that is
/// set but malformed or out of range stops the start with one line naming it: a typo must
/// never quietly become the default.
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
    public var logLevel: Logger.Level
    /// Whether `liftbase migrate` loads the catalogs shipped in sql/data (USDA SR28 foods,
    /// free-exercise-db exercises); an operator with a catalog of their own turns it off.
    public var loadsBuiltinCatalogs: Bool
    /// The server's limits on clients (docs/operations.md "Limits"): how long a request's
    /// head may take to arrive, how long a kept-alive connection may sit idle, how many
    /// connections may be open, how long one request's SQL may run, and how long requests
    /// in flight may take to finish once SIGTERM asks the server to stop.
    public var headerTimeout: Duration
    public var idleTimeout: Duration
    public var maximumConnections: Int
    public var statementTimeout: Duration
    public var drainTimeout: Duration
    /// The proxies whose X-Forwarded-For names a request's client (LIFTBASE_TRUSTED_PROXIES,
    /// addresses or networks, comma-separated; docs/security.md). Without them every request
    /// is the socket's peer's: a header anyone can write never decides a rate limit.
    public var trustedProxies: [IPNetwork]
    /// The in-memory budgets of every API request (docs/security.md): per bearer token
    /// (LIFTBASE_RATE_LIMIT_PER_TOKEN) and per client address (LIFTBASE_RATE_LIMIT_PER_ADDRESS),
    /// `quota/seconds` or `off`; nil when off.
    public var tokenBudget: RequestBudget.Policy?
    public var addressBudget: RequestBudget.Policy?
    /// The OpenID Connect providers people may sign in with (LIFTBASE_OIDC_PROVIDERS, JSON;
    /// docs/security.md); none unless set.
    public var oidcProviders: [OIDCProvider]

    /// Run on every connection the server or the CLI opens: timestamps leave in UTC, so no
    /// answer depends on the cluster's TimeZone (dates in a user's zone are SQL's, with that
    /// zone named).
    public static let sessionSetup = "set timezone = 'UTC'"

    /// The server's connections also stop any statement that runs past the statement
    /// timeout (answered 503 `request_timeout`): one runaway request cannot hold a pooled
    /// connection, and the CLI's long work (imports, migrations) is not bound by it.
    public var serverSessionSetup: String {
        Self.sessionSetup + "; set statement_timeout = \(Int(statementTimeout.milliseconds))"
    }

    public static let portRange = 1...65535
    public static let poolSizeRange = 1...1000
    /// One connection per core of this machine, plus one: what measured best in
    /// `Scripts/bench` with the database on the same machine (docs/scaling.md "Pool size").
    /// More only add waiting there; a database on a larger machine of its own wants more.
    public static var defaultPoolSize: Int { ProcessInfo.processInfo.activeProcessorCount + 1 }
    public static let poolTimeoutMillisecondsRange = 1...600_000
    public static let limitMillisecondsRange = 1...3_600_000
    public static let maximumConnectionsRange = 1...1_000_000

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func value(_ name: String) throws -> String? { try Self.setting(name, in: environment) }
        func number(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
            guard let text = try value(name) else { return fallback }
            guard let number = Int(text), range.contains(number) else {
                throw ConfigurationError.invalid(
                    "\(name)=\(text): must be a whole number from \(range.lowerBound) to \(range.upperBound)"
                )
            }
            return number
        }
        databaseURL = try value("DATABASE_URL")
        host = try value("LIFTBASE_HOST") ?? "127.0.0.1"
        port = try number("LIFTBASE_PORT", in: Self.portRange, default: 8080)
        poolSize = try number("LIFTBASE_POOL_SIZE", in: Self.poolSizeRange, default: Self.defaultPoolSize)
        poolAcquireTimeout = .milliseconds(
            try number("LIFTBASE_POOL_TIMEOUT_MS", in: Self.poolTimeoutMillisecondsRange, default: 5000)
        )
        func milliseconds(_ name: String, default fallback: Int) throws -> Duration {
            .milliseconds(try number(name, in: Self.limitMillisecondsRange, default: fallback))
        }
        headerTimeout = try milliseconds("LIFTBASE_HEADER_TIMEOUT_MS", default: 10_000)
        idleTimeout = try milliseconds("LIFTBASE_IDLE_TIMEOUT_MS", default: 60_000)
        maximumConnections = try number("LIFTBASE_MAX_CONNECTIONS", in: Self.maximumConnectionsRange, default: 1_000)
        // Long enough for the largest import the API takes (a 20,000-set Strong file took
        // 20 to 40 s on two busy cores); it bounds a runaway statement, not a normal request.
        statementTimeout = try milliseconds("LIFTBASE_STATEMENT_TIMEOUT_MS", default: 300_000)
        drainTimeout = try milliseconds("LIFTBASE_DRAIN_TIMEOUT_MS", default: 30_000)
        apiRole = try value("LIFTBASE_DB_ROLE") ?? "liftbase_api"
        sqlDirectory = try value("LIFTBASE_SQL_DIR") ?? Configuration.defaultSQLDirectory()
        trustedProxies = try (value("LIFTBASE_TRUSTED_PROXIES") ?? "").split(separator: ",").map { entry in
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            guard let network = IPNetwork(trimmed) else {
                throw ConfigurationError.invalid(
                    "LIFTBASE_TRUSTED_PROXIES: \(trimmed) is no address or network (such as 10.0.0.0/8 or ::1)"
                )
            }
            return network
        }
        tokenBudget = try RequestBudget.Policy.parse(
            value("LIFTBASE_RATE_LIMIT_PER_TOKEN") ?? "1200/60",
            name: "per_token",
            setting: "LIFTBASE_RATE_LIMIT_PER_TOKEN"
        )
        addressBudget = try RequestBudget.Policy.parse(
            value("LIFTBASE_RATE_LIMIT_PER_ADDRESS") ?? "3000/60",
            name: "per_address",
            setting: "LIFTBASE_RATE_LIMIT_PER_ADDRESS"
        )
        oidcProviders = try value("LIFTBASE_OIDC_PROVIDERS").map(OIDCProvider.parse) ?? []
        switch try value("LIFTBASE_BUILTIN_CATALOGS")?.lowercased() {
        case nil, "on": loadsBuiltinCatalogs = true
        case "off": loadsBuiltinCatalogs = false
        case let other?: throw ConfigurationError.invalid("LIFTBASE_BUILTIN_CATALOGS=\(other): must be on or off")
        }
        if let text = try value("LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError.invalid("LOG_LEVEL=\(text): must be one of \(levels)")
            }
            logLevel = level
        } else {
            logLevel = .info
        }
    }

    /// A setting of `environment`: nil when unset. Set but empty (`LIFTBASE_PORT=`, often a
    /// variable meant to be filled in) is refused as a malformed value is, never taken as
    /// unset: the default it would fall back to may not be what the operator meant.
    public static func setting(_ name: String, in environment: [String: String]) throws -> String? {
        guard let text = environment[name] else { return nil }
        guard !text.isEmpty else {
            throw ConfigurationError.invalid("\(name) is set but empty: give it a value, or unset it for the default")
        }
        return text
    }

    public func requireDatabaseURL() throws -> String {
        guard let databaseURL else {
            throw ConfigurationError.missing("DATABASE_URL is not set (or pass --database-url)")
        }
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
    case invalid(String)

    public var description: String {
        switch self {
        case .missing(let what), .invalid(let what): return what
        }
    }
}
