import Metrics
import PQ
import Prometheus

/// Request counts and latency by route and status, and the pool's load, as Prometheus text.
/// Each application has its own registry (tests run several in one process).
final class HTTPMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5),
        ]
        self.factory = factory
    }

    func record(method: String, route: String, status: Int, duration: Duration) {
        let dimensions = [("method", method), ("route", route), ("status", String(status))]
        Counter(label: "liftbase_http_requests_total", dimensions: dimensions, factory: factory).increment()
        Metrics.Timer(label: "liftbase_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            .recordNanoseconds(duration.nanosecondsClamped)
    }

    func emit(pool: ConnectionPool.Statistics) -> String {
        Gauge(label: "liftbase_db_pool_size", factory: factory).record(pool.size)
        Gauge(label: "liftbase_db_pool_in_use", factory: factory).record(pool.inUse)
        Gauge(label: "liftbase_db_pool_waiting", factory: factory).record(pool.waiting)
        return registry.emitToString()
    }
}

extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
