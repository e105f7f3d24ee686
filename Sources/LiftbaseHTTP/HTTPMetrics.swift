import Foundation
import Metrics
import PQ
import Prometheus

/// Request counts and latency by route and status, the pool's load, and the connections
/// (open, refused over the limit, closed by a timeout), as Prometheus text.
/// Each application has its own registry (tests run several in one process). The metric
/// objects of a (method, route, status) are made once and kept: building them looks them up
/// in the registry under its lock, work a request should not repeat.
final class HTTPMetrics: @unchecked Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let poolSize: Metrics.Gauge
    private let poolInUse: Metrics.Gauge
    private let poolWaiting: Metrics.Gauge
    private let poolPipelined: Metrics.Counter
    /// The pool's count when it was last emitted: the counter grows by the difference.
    private var poolPipelinedEmitted = 0
    private let poolReadsRunAgain: Metrics.Counter
    private var poolReadsRunAgainEmitted = 0
    private let connectionsOpen: Metrics.Gauge
    let connectionsRefused: Metrics.Counter
    let connectionsTimedOut: Metrics.Counter
    private let lock = NSLock()
    private var requestMetrics: [RequestKey: (count: Metrics.Counter, duration: Metrics.Timer)] = [:]

    struct RequestKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5),
        ]
        self.factory = factory
        poolSize = Metrics.Gauge(label: "liftbase_db_pool_size", factory: factory)
        poolInUse = Metrics.Gauge(label: "liftbase_db_pool_in_use", factory: factory)
        poolWaiting = Metrics.Gauge(label: "liftbase_db_pool_waiting", factory: factory)
        poolPipelined = Metrics.Counter(label: "liftbase_db_pipelined_statements_total", factory: factory)
        poolReadsRunAgain = Metrics.Counter(label: "liftbase_db_pipelined_reads_run_again_total", factory: factory)
        connectionsOpen = Metrics.Gauge(label: "liftbase_http_connections_open", factory: factory)
        connectionsRefused = Metrics.Counter(label: "liftbase_http_connections_refused_total", factory: factory)
        connectionsTimedOut = Metrics.Counter(label: "liftbase_http_connections_timed_out_total", factory: factory)
    }

    func record(method: String, route: String, status: Int, duration: Duration) {
        let metrics = metrics(for: RequestKey(method: method, route: route, status: status))
        metrics.count.increment()
        metrics.duration.recordNanoseconds(duration.nanosecondsClamped)
    }

    /// The counter and timer of one kind of request, made on its first request.
    func metrics(for key: RequestKey) -> (count: Metrics.Counter, duration: Metrics.Timer) {
        lock.lock()
        defer { lock.unlock() }
        if let existing = requestMetrics[key] { return existing }
        let dimensions = [("method", key.method), ("route", key.route), ("status", String(key.status))]
        let made = (
            Metrics.Counter(label: "liftbase_http_requests_total", dimensions: dimensions, factory: factory),
            Metrics.Timer(label: "liftbase_http_request_duration_seconds", dimensions: dimensions, factory: factory)
        )
        requestMetrics[key] = made
        return made
    }

    /// The outbox's gauges by channel (`auth.outbox_metrics()`), made on the first scrape.
    private var outboxGauges: [String: [Metrics.Gauge]] = [:]
    /// The columns of `auth.outbox_metrics()` after the channel, as the gauges they set.
    static let outboxColumns = [
        "liftbase_outbox_due", "liftbase_outbox_oldest_due_seconds", "liftbase_outbox_in_flight",
        "liftbase_outbox_retrying", "liftbase_outbox_delivered", "liftbase_outbox_dead",
    ]
    static let outboxQuery = """
        select channel, due, oldest_due_seconds, in_flight, retrying, delivered, dead from auth.outbox_metrics()
        """

    /// Sets the outbox gauges from the rows of `outboxQuery`.
    func record(outbox rows: [[String?]]) {
        lock.withLock {
            for row in rows {
                guard let channel = row.first ?? nil, row.count == Self.outboxColumns.count + 1 else { continue }
                let gauges =
                    outboxGauges[channel]
                    ?? Self.outboxColumns.map {
                        Metrics.Gauge(label: $0, dimensions: [("kind", channel)], factory: factory)
                    }
                outboxGauges[channel] = gauges
                for (gauge, value) in zip(gauges, row.dropFirst()) { gauge.record(Double(value ?? "0") ?? 0) }
            }
        }
    }

    func emit(pool: ConnectionPool.Statistics, openConnections: Int) -> String {
        connectionsOpen.record(openConnections)
        poolSize.record(pool.size)
        poolInUse.record(pool.inUse)
        poolWaiting.record(pool.waiting)
        // Two scrapes at once may come here in either order: the counter never goes back.
        lock.withLock {
            if pool.pipelinedStatements > poolPipelinedEmitted {
                poolPipelined.increment(by: Int64(pool.pipelinedStatements - poolPipelinedEmitted))
                poolPipelinedEmitted = pool.pipelinedStatements
            }
            if pool.readsRunAgain > poolReadsRunAgainEmitted {
                poolReadsRunAgain.increment(by: Int64(pool.readsRunAgain - poolReadsRunAgainEmitted))
                poolReadsRunAgainEmitted = pool.readsRunAgain
            }
        }
        return registry.emitToString()
    }
}

extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
