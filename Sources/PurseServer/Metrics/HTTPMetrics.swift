import Hummingbird
import Metrics
import NIOConcurrencyHelpers
import Prometheus

/// Every request counted (`purse_http_requests_total{method,route,status}`) and timed
/// (`purse_http_request_duration_seconds{method,route}`) under its route template, never its
/// path, so ids stay out of the labels and the number of series stays bounded.
///
/// The table of routes is made once, after every route is registered, and only read afterwards:
/// finding a request's series is a dictionary lookup by template with no lock. Each route's
/// `200` counter and its histogram exist from the start (so they read 0 before the first
/// request); other statuses are made on first use under the route's own lock.
final class HTTPMetrics: Sendable {
    static let requestsTotal = "purse_http_requests_total"
    static let requestDuration = "purse_http_request_duration_seconds"
    /// The `route` of a request no route matched (an unknown path, or a known path with a method
    /// it does not serve).
    static let unmatchedRoute = "unmatched"

    static var requestsDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(requestsTotal, help: "HTTP requests answered, by method, route template and status.")
    }
    static var durationDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            requestDuration, help: "Time from receiving a request to handing back its response, by method and route template."
        )
    }
    /// From half a millisecond (a request that touches the database takes about one here) to ten
    /// seconds.
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5), .seconds(10),
    ]

    /// Route template (as Hummingbird reports the matched endpoint) → the route's methods.
    private let routes: [String: [RouteSeries]]
    private let unmatched: NIOLockedValueBox<[String: RouteSeries]>
    private let registry: PrometheusCollectorRegistry

    init(routes: [(method: HTTPRequest.Method, path: String)], registry: PrometheusCollectorRegistry) {
        var table: [String: [RouteSeries]] = [:]
        for route in routes {
            let template = RouterPath(route.path).description
            table[template, default: []].append(
                RouteSeries(method: route.method.rawValue, route: template, answersOK: true, registry: registry)
            )
        }
        self.routes = table
        self.unmatched = NIOLockedValueBox([:])
        self.registry = registry
    }

    func record(method: HTTPRequest.Method, endpoint: String?, status: Int, duration: Duration) {
        series(method: method, endpoint: endpoint).record(status: status, duration: duration)
    }

    private func series(method: HTTPRequest.Method, endpoint: String?) -> RouteSeries {
        if let endpoint, let candidates = routes[endpoint] {
            for candidate in candidates where candidate.method == method.rawValue { return candidate }
        }
        // The method comes from the client: only the standard ones become a label value.
        let label = Self.standardMethods.contains(method.rawValue) ? method.rawValue : "other"
        return unmatched.withLockedValue { unmatched in
            if let series = unmatched[label] { return series }
            let series = RouteSeries(method: label, route: Self.unmatchedRoute, answersOK: false, registry: registry)
            unmatched[label] = series
            return series
        }
    }

    private static let standardMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ]
}

/// One method of one route: its duration histogram and a counter per status.
final class RouteSeries: Sendable {
    let method: String
    private let route: String
    private let duration: Metrics.Timer
    /// Status 200's counter, made up front for a real route: the common case takes no lock.
    private let ok: Metrics.Counter?
    private let others: NIOLockedValueBox<[Int: Metrics.Counter]>
    private let registry: PrometheusCollectorRegistry

    init(method: String, route: String, answersOK: Bool, registry: PrometheusCollectorRegistry) {
        self.method = method
        self.route = route
        self.registry = registry
        let dimensions = [("method", method), ("route", route)]
        duration = Metrics.Timer(
            label: HTTPMetrics.requestDuration, dimensions: dimensions,
            handler: registry.makeDurationHistogram(
                descriptor: HTTPMetrics.durationDescriptor, labels: dimensions, buckets: HTTPMetrics.durationBuckets
            ),
            factory: PrometheusMetricsFactory(registry: registry)
        )
        ok = answersOK ? Self.counter(method: method, route: route, status: 200, registry: registry) : nil
        others = NIOLockedValueBox([:])
    }

    func record(status: Int, duration: Duration) {
        counter(status).increment()
        self.duration.record(duration: duration)
    }

    private func counter(_ status: Int) -> Metrics.Counter {
        if status == 200, let ok { return ok }
        return others.withLockedValue { others in
            if let counter = others[status] { return counter }
            let counter = Self.counter(method: method, route: route, status: status, registry: registry)
            others[status] = counter
            return counter
        }
    }

    private static func counter(method: String, route: String, status: Int, registry: PrometheusCollectorRegistry) -> Metrics.Counter {
        let dimensions = [("method", method), ("route", route), ("status", String(status))]
        return Metrics.Counter(
            label: HTTPMetrics.requestsTotal, dimensions: dimensions,
            handler: registry.makeCounter(descriptor: HTTPMetrics.requestsDescriptor, labels: dimensions),
            factory: PrometheusMetricsFactory(registry: registry)
        )
    }
}

/// Wraps the router's responder, outside every middleware, so it sees the status actually sent
/// (errors already turned into responses) and the route Hummingbird matched.
struct MeteredResponder<Base: HTTPResponder>: HTTPResponder where Base.Context == PurseRequestContext {
    let base: Base
    let metrics: HTTPMetrics

    func respond(to request: Request, context: PurseRequestContext) async throws -> Response {
        let started = ContinuousClock.now
        let response: Response
        do {
            response = try await base.respond(to: request, context: context)
        } catch {
            // `ResponseMiddleware` answers every error itself; this is the server's own fallback.
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.record(
                method: request.method, endpoint: context.endpointPath, status: status, duration: ContinuousClock.now - started
            )
            throw error
        }
        metrics.record(
            method: request.method, endpoint: context.endpointPath, status: response.status.code,
            duration: ContinuousClock.now - started
        )
        return response
    }
}
