import ArgumentParser
import Hummingbird
import LiftbaseCore
import LiftbaseHTTP
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the HTTP API (the default command).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Address to listen on (default: $LIFTBASE_HOST or 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on (default: $LIFTBASE_PORT or 8080).")
    var port: Int?

    @Option(name: .customLong("pool-size"), help: "Database connections (default: $LIFTBASE_POOL_SIZE or 10).")
    var poolSize: Int?

    func run() async throws {
        var configuration = database.configuration()
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let poolSize { configuration.poolSize = poolSize }
        guard (1...1000).contains(configuration.poolSize) else { throw ValidationError("--pool-size must be 1 to 1000") }
        var logger = Logger(label: "liftbase")
        logger.logLevel = ProcessInfoLogLevel.current
        let application = try LiftbaseServer.makeApplication(configuration: configuration, logger: logger)
        try await application.runService()
    }
}

enum ProcessInfoLogLevel {
    /// LOG_LEVEL from the environment (trace ... critical), info by default.
    static var current: Logger.Level {
        Environment().get("LOG_LEVEL").flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
    }
}
