import ArgumentParser
import Foundation
import Hummingbird
import LiftbaseCore
import LiftbaseHTTP
import Logging
import NIOCore
import PQ

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the HTTP API (the default command).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Address to listen on (default: $LIFTBASE_HOST or 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on (default: $LIFTBASE_PORT or 8080).")
    var port: Int?

    @Option(name: .customLong("pool-size"), help: "Database connections (default: $LIFTBASE_POOL_SIZE or cores + 1).")
    var poolSize: Int?

    func validate() throws {
        if let port, !LiftbaseCore.Configuration.portRange.contains(port) {
            throw ValidationError("--port must be 1 to 65535")
        }
        if let poolSize, !LiftbaseCore.Configuration.poolSizeRange.contains(poolSize) {
            throw ValidationError("--pool-size must be 1 to 1000")
        }
    }

    func run() async throws {
        var configuration = try database.configuration()
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let poolSize { configuration.poolSize = poolSize }
        var logger = Logger(label: "liftbase", factory: { LogLineHandler(label: $0) })
        logger.logLevel = configuration.logLevel
        let server = try LiftbaseServer.makeServiceGroup(configuration: configuration, logger: logger)
        try await StartupCheck.run(configuration: configuration, logger: logger)
        do {
            try await server.run()
        } catch let error as IOError {
            // NIO names the call that failed (bind(descriptor:ptr:bytes:)), not the address.
            throw StartupCheck.Failure(
                description: "cannot listen on \(configuration.host):\(configuration.port): "
                    + String(cString: strerror(error.errnoCode))
            )
        }
    }
}

/// What the server checks of its database before it listens, on a thread of its own (libpq
/// blocks). A database that cannot be reached yet, or is not migrated yet, is logged and
/// served anyway (the pool reconnects; /readyz answers 503 until `liftbase migrate`). A
/// migrated database that lacks a function of the endpoint table, or holds a malformed
/// setting, stops the start with one line naming it.
enum StartupCheck {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(configuration: LiftbaseCore.Configuration, logger: Logger) async throws {
        let problem: String? = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try check(configuration: configuration, logger: logger) })
            }
        }
        if let problem { throw Failure(description: problem) }
    }

    private static func check(configuration: LiftbaseCore.Configuration, logger: Logger) throws -> String? {
        let migrator = try Migrator(directory: configuration.sqlDirectory)
        let connection: Connection
        do {
            connection = try Connection(try configuration.requireDatabaseURL())
        } catch let error as PostgresError {
            logger.warning("database not reachable at start; serving and retrying: \(error.message)")
            return nil
        }
        defer { connection.close() }
        let pending = migrator.pending(applied: try migrator.applied(on: connection))
        guard pending.isEmpty else {
            logger.warning("migrations pending (run liftbase migrate): \(pending.map(\.name).joined(separator: ", "))")
            return nil
        }
        let missing = try Endpoint.missingFunctions(in: endpoints, on: connection)
        if !missing.isEmpty {
            return "the database lacks api functions of the endpoint table: " + missing.joined(separator: ", ")
        }
        do {
            // An out-of-range liftbase.bcrypt_cost, a malformed liftbase.rate_limits, an
            // unknown liftbase.registration, a lifetime that is none or a photo limit that
            // is no number raises here rather than at the first sign-up or upload.
            try connection.query(
                "select auth.bcrypt_cost(), (select count(*) from auth.rate_limits()), auth.registration_mode(), "
                    + "auth.requires_verified_email(), auth.access_token_lifetime(), auth.refresh_token_lifetime(), "
                    + "auth.security_log_retention(), app.photo_limits()"
            )
        } catch let error as PostgresError where error.sqlstate == .configFileError {
            return error.message
        }
        return nil
    }
}
