import Hummingbird
import Logging
import NIOCore
import Postgres
import PurseCore

/// `GET /metrics`: Prometheus' text format. Public, like the health routes: it carries no
/// account, customer, key or other tenant data (labels are route templates, methods, statuses and
/// fixed names), and the proxy in front of Purse should keep it off the public internet.
///
/// The request figures are kept as they happen (``HTTPMetrics``); the pool, the webhook queue
/// and the process are read now, at the scrape.
struct MetricsController {
    let registry: PrometheusRegistry
    let pool: PostgresClient
    /// The webhook queue's figures, one read shared by the scrapes that arrive while it runs.
    let backlog: SharedRead<WebhookBacklog>
    let caches: ChangeCaches

    @Sendable func metrics(_: Request, _ context: PurseRequestContext) async -> Response {
        var text = PrometheusText()
        registry.render(into: &text)
        Self.write(pool.statistics, maxConnections: pool.options.maxConnections, into: &text)
        text.family(
            "purse_change_feed_listening", .gauge,
            help:
                "1 while this server hears of changes (LISTEN) and serves keys, sessions and settings from memory; 0 while it reads them from PostgreSQL."
        )
        text.sample("purse_change_feed_listening", caches.isServing ? 1 : 0)
        do {
            Self.write(try await backlog.value(), into: &text)
        } catch {
            // The rest of the scrape still helps while the database is away; these series pause.
            context.logger.debug("webhook backlog unavailable for metrics", metadata: ["error": "\(error)"])
        }
        ProcessMetrics.write(into: &text)
        let bytes = ByteBuffer(string: text.output)
        return Response(
            status: .ok,
            headers: [.contentType: PrometheusText.contentType, .contentLength: String(bytes.readableBytes)],
            body: ResponseBody(byteBuffer: bytes)
        )
    }

    static func write(_ pool: PostgresClient.Statistics, maxConnections: Int, into text: inout PrometheusText) {
        text.family("purse_db_pool_connections_max", .gauge, help: "Most database connections the pool opens (--pool-size).")
        text.sample("purse_db_pool_connections_max", maxConnections)
        text.family(
            "purse_db_pool_connections", .gauge, help: "Database connections open (or opening), by whether a request holds them."
        )
        text.sample("purse_db_pool_connections", labels: #"{state="in_use"}"#, max(0, pool.open - pool.idle))
        text.sample("purse_db_pool_connections", labels: #"{state="idle"}"#, pool.idle)
        text.family("purse_db_pool_waiting", .gauge, help: "Callers waiting now for a free database connection.")
        text.sample("purse_db_pool_waiting", pool.waiting)
        text.family("purse_db_pool_waits_total", .counter, help: "Callers that had to wait for a free database connection.")
        text.sample("purse_db_pool_waits_total", pool.totalWaits)
        text.family(
            "purse_db_pool_wait_seconds_total", .counter,
            help: "Time callers spent waiting for a free database connection (waits that ended)."
        )
        text.sample("purse_db_pool_wait_seconds_total", seconds(pool.totalWaitTime))
        text.family(
            "purse_db_pool_timeouts_total", .counter,
            help: "Waits for a database connection that timed out (--pool-timeout), each answered 503."
        )
        text.sample("purse_db_pool_timeouts_total", pool.timeouts)
    }

    static func write(_ backlog: WebhookBacklog, into text: inout PrometheusText) {
        text.family(
            "purse_webhook_deliveries_pending", .gauge, help: "Webhook deliveries not yet made (every account in the database)."
        )
        text.sample("purse_webhook_deliveries_pending", backlog.pending)
        text.family("purse_webhook_deliveries_due", .gauge, help: "Pending webhook deliveries whose next attempt is due now.")
        text.sample("purse_webhook_deliveries_due", backlog.due)
        text.family(
            "purse_webhook_oldest_due_age_seconds", .gauge,
            help: "How long the longest-due webhook delivery has waited past its time (0 when none is due)."
        )
        text.sample("purse_webhook_oldest_due_age_seconds", backlog.oldestDueAge)
        text.family(
            "purse_webhook_deliveries_failed", .gauge,
            help: "Webhook deliveries given up on, or dropped when their endpoint was disabled."
        )
        text.sample("purse_webhook_deliveries_failed", backlog.failed)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
