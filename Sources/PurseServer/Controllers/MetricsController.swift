import Hummingbird
import Logging
import NIOCore
import Postgres
import Prometheus
import PurseCore

/// `GET /metrics`: Prometheus' text format. Public, like the health routes: it carries no
/// account, customer, key or other tenant data (labels are route templates, methods, statuses and
/// fixed names), and the proxy in front of Purse should keep it off the public internet.
///
/// The request figures are kept as they happen, in the application's registry (``HTTPMetrics``);
/// the pool, the webhook queue and the process are read now, at the scrape, into a registry of
/// the scrape's own, so each is set once and a figure that cannot be read this time (the queue
/// while the database is away) is simply absent.
struct MetricsController {
    /// The `Content-Type` of Prometheus' text exposition format, version 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let registry: PrometheusCollectorRegistry
    let pool: PostgresClient
    /// The webhook queue's figures, one read shared by the scrapes that arrive while it runs.
    let backlog: SharedRead<WebhookBacklog>
    let caches: ChangeCaches

    @Sendable func metrics(_: Request, _ context: PurseRequestContext) async -> Response {
        let scrape = PrometheusCollectorRegistry()
        Self.record(pool.statistics, maxConnections: pool.options.maxConnections, into: scrape)
        scrape.makeGauge(
            descriptor: .init(
                "purse_change_feed_listening",
                help:
                    "1 while this server hears of changes (LISTEN) and serves keys, sessions and settings from memory; 0 while it reads them from PostgreSQL."
            )
        ).set(to: caches.isServing ? 1 : 0)
        do {
            Self.record(try await backlog.value(), into: scrape)
        } catch {
            // The rest of the scrape still helps while the database is away; these series pause.
            context.logger.debug("webhook backlog unavailable for metrics", metadata: ["error": "\(error)"])
        }
        ProcessMetrics.record(into: scrape)
        var text: [UInt8] = []
        text.reserveCapacity(16_384)
        registry.emit(into: &text)
        scrape.emit(into: &text)
        return Response(
            status: .ok,
            headers: [.contentType: Self.contentType, .contentLength: String(text.count)],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text))
        )
    }

    static func record(_ pool: PostgresClient.Statistics, maxConnections: Int, into registry: PrometheusCollectorRegistry) {
        registry.makeGauge(descriptor: .init("purse_db_pool_connections_max", help: "Most database connections the pool opens (--pool-size)."))
            .set(Int64(maxConnections))
        let connections = MetricNameDescriptor(
            "purse_db_pool_connections", help: "Database connections open (or opening), by whether a request holds them."
        )
        registry.makeGauge(descriptor: connections, labels: [("state", "in_use")]).set(Int64(max(0, pool.open - pool.idle)))
        registry.makeGauge(descriptor: connections, labels: [("state", "idle")]).set(Int64(pool.idle))
        registry.makeGauge(descriptor: .init("purse_db_pool_waiting", help: "Callers waiting now for a free database connection."))
            .set(Int64(pool.waiting))
        registry.makeCounter(descriptor: .init("purse_db_pool_waits_total", help: "Callers that had to wait for a free database connection."))
            .increment(by: Int64(pool.totalWaits))
        registry.makeCounter(
            descriptor: .init(
                "purse_db_pool_wait_seconds_total", help: "Time callers spent waiting for a free database connection (waits that ended)."
            )
        ).increment(by: seconds(pool.totalWaitTime))
        registry.makeCounter(
            descriptor: .init(
                "purse_db_pool_timeouts_total", help: "Waits for a database connection that timed out (--pool-timeout), each answered 503."
            )
        ).increment(by: Int64(pool.timeouts))
    }

    static func record(_ backlog: WebhookBacklog, into registry: PrometheusCollectorRegistry) {
        registry.makeGauge(
            descriptor: .init("purse_webhook_deliveries_pending", help: "Webhook deliveries not yet made (every account in the database).")
        ).set(Int64(backlog.pending))
        registry.makeGauge(
            descriptor: .init("purse_webhook_deliveries_due", help: "Pending webhook deliveries whose next attempt is due now.")
        ).set(Int64(backlog.due))
        registry.makeGauge(
            descriptor: .init(
                "purse_webhook_oldest_due_age_seconds",
                help: "How long the longest-due webhook delivery has waited past its time (0 when none is due)."
            )
        ).set(backlog.oldestDueAge)
        registry.makeGauge(
            descriptor: .init(
                "purse_webhook_deliveries_failed", help: "Webhook deliveries given up on, or dropped when their endpoint was disabled."
            )
        ).set(Int64(backlog.failed))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
