import Foundation
import Hummingbird
import LiftbaseCore
import Logging
import PQ
import ServiceLifecycle

/// Builds the Hummingbird application: the API responder over a thread-owned connection
/// pool, a service that starts with the application and drains on graceful shutdown.
public enum LiftbaseServer {

    public static func makeApplication(
        configuration: LiftbaseCore.Configuration,
        endpoints: [Endpoint] = LiftbaseCore.endpoints,
        logger: Logger = Logger(label: "liftbase")
    ) throws -> some ApplicationProtocol {
        let migrator = try Migrator(directory: configuration.sqlDirectory)
        let routes = try RouteTable(endpoints)
        let contract = try APIContract(directory: APIContract.directory(inSQLDirectory: configuration.sqlDirectory))
        let pool = ConnectionPool(
            .init(
                conninfo: try configuration.requireDatabaseURL(),
                size: configuration.poolSize,
                role: configuration.apiRole,
                sessionSetup: LiftbaseCore.Configuration.sessionSetup,
                acquireTimeout: configuration.poolAcquireTimeout,
                threadNamePrefix: "liftbase-db-"
            ),
            logger: logger
        )
        let responder = APIResponder(
            pool: pool,
            routes: routes,
            migrator: migrator,
            metrics: HTTPMetrics(),
            openAPI: OpenAPIDocument.json(for: endpoints, contract: contract),
            logger: logger
        )
        return Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [ParserErrorAnswer()])),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "liftbase"
            ),
            services: [pool],
            logger: logger
        )
    }
}
