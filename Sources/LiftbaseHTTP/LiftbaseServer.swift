import Hummingbird
import LiftbaseCore
import Logging
import PQ
import Foundation
import ServiceLifecycle

/// Builds the Hummingbird application: the API responder over a thread-owned connection
/// pool that starts with the application and drains on graceful shutdown.
public enum LiftbaseServer {
    public static func makeApplication(
        configuration: LiftbaseCore.Configuration,
        logger: Logger = Logger(label: "liftbase")
    ) throws -> some ApplicationProtocol {
        let migrator = try Migrator(directory: configuration.sqlDirectory)
        let pool = ConnectionPool(
            .init(conninfo: try configuration.requireDatabaseURL(), size: configuration.poolSize,
                  role: configuration.apiRole, acquireTimeout: configuration.poolAcquireTimeout),
            logger: logger
        )
        let responder = APIResponder(
            pool: pool, routes: RouteTable(endpoints), migrator: migrator, metrics: HTTPMetrics(),
            openAPI: OpenAPIDocument.json(for: endpoints), logger: logger
        )
        return Application(
            responder: responder,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "liftbase"),
            services: [PoolService(pool: pool)],
            logger: logger
        )
    }
}

/// Closes the pool's connections when the application shuts down.
struct PoolService: Service {
    let pool: ConnectionPool

    func run() async throws {
        try? await gracefulShutdown()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                pool.shutdown()
                done.resume()
            }
        }
    }
}
