import Foundation
import Hummingbird
import LiftbaseCore
import Logging
import NIOCore
import PQ
import ServiceLifecycle

/// Builds the Hummingbird application: the API responder over a thread-owned connection
/// pool, every connection held to the configured limits, and the services that start with
/// the application and stop in order on SIGTERM.
public enum LiftbaseServer {

    /// The application alone, as tests drive it.
    public static func makeApplication(
        configuration: LiftbaseCore.Configuration,
        endpoints: [Endpoint] = LiftbaseCore.endpoints,
        logger: Logger = Logger(label: "liftbase")
    ) throws -> some ApplicationProtocol {
        try makeParts(configuration: configuration, endpoints: endpoints, logger: logger).application
    }

    /// What `liftbase serve` runs. On SIGTERM or SIGINT the drain stops first (new requests
    /// are answered 503 while those in flight finish, up to the drain timeout), then the
    /// HTTP server closes its connections, then the pool closes its own. `onServerRunning`
    /// is told the port the server listens on.
    public static func makeServiceGroup(
        configuration: LiftbaseCore.Configuration,
        logger: Logger = Logger(label: "liftbase"),
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> ServiceGroup {
        let parts = try makeParts(
            configuration: configuration,
            endpoints: LiftbaseCore.endpoints,
            logger: logger,
            onServerRunning: onServerRunning
        )
        return ServiceGroup(
            configuration: .init(
                // Stopped in reverse order: the drain before the application.
                services: [parts.application, parts.drain],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
    }

    /// On Citus, an API call makes its user known to the workers with `SET LOCAL`
    /// (sql/functions/auth_sessions.sql), which they see only inside a transaction block;
    /// on a single node a lone statement stays the cheaper way.
    @Sendable static func runCallsInTransactionBlocksOnCitus(_ connection: Connection) throws {
        let citus = try connection.query("select exists (select from pg_extension where extname = 'citus')").rows
        connection.runsStatementsInTransactionBlocks = citus.first?.first == "t"
    }

    private static func makeParts(
        configuration: LiftbaseCore.Configuration,
        endpoints: [Endpoint],
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> (application: Application<APIResponder>, drain: DrainService) {
        let migrator = try Migrator(directory: configuration.sqlDirectory)
        let routes = try RouteTable(endpoints)
        let contract = try APIContract(directory: APIContract.directory(inSQLDirectory: configuration.sqlDirectory))
        let pool = ConnectionPool(
            .init(
                conninfo: try configuration.requireDatabaseURL(),
                size: configuration.poolSize,
                role: configuration.apiRole,
                sessionSetup: configuration.serverSessionSetup,
                prepare: Self.runCallsInTransactionBlocksOnCitus,
                acquireTimeout: configuration.poolAcquireTimeout,
                threadNamePrefix: "liftbase-db-"
            ),
            logger: logger
        )
        let metrics = HTTPMetrics()
        let gate = RequestGate()
        let connections = OpenConnections(metrics: metrics)
        let limits = ConnectionLimits(
            headerTimeout: configuration.headerTimeout,
            idleTimeout: configuration.idleTimeout,
            maximumConnections: configuration.maximumConnections
        )
        let responder = APIResponder(
            pool: pool,
            routes: routes,
            migrator: migrator,
            metrics: metrics,
            gate: gate,
            connections: connections,
            openAPI: OpenAPIDocument.json(for: endpoints, contract: contract),
            clientAddresses: ClientAddressResolver(trustedProxies: configuration.trustedProxies),
            tokenBudget: configuration.tokenBudget.map(RequestBudget.init),
            addressBudget: configuration.addressBudget.map(RequestBudget.init),
            idTokens: configuration.oidcProviders.isEmpty
                ? nil : IDTokenVerifier(providers: configuration.oidcProviders),
            logger: logger
        )
        let application = Application(
            responder: responder,
            server: .http1(
                configuration: .init(additionalChannelHandlers: [
                    ParserErrorAnswer(), ConnectionGuard(limits: limits, connections: connections),
                ])
            ),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "liftbase"
            ),
            services: [pool],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        return (application, DrainService(gate: gate, pool: pool, timeout: configuration.drainTimeout, logger: logger))
    }
}
