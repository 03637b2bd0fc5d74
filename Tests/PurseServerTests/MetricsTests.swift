import Foundation
import PurseModels
import TestSupport
import Testing

@testable import PurseServer

@Suite("Metrics: GET /metrics over HTTP")
struct MetricsTests {
    @Test func theExpositionIsWellFormedPrometheusText() async throws {
        try await LiveServer.with { server in
            _ = try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("healthz"))
            let call = try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("metrics"))
            #expect(call.status == 200)
            #expect(call.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let metrics = try Exposition.parse(String(decoding: call.body, as: UTF8.self))

            #expect(metrics.types[HTTPMetrics.requestsTotal] == "counter")
            #expect(metrics.types[HTTPMetrics.requestDuration] == "histogram")
            #expect(metrics.value(HTTPMetrics.requestsTotal, ["method": "GET", "route": "/healthz", "status": "200"]) == 1)
            #expect(
                metrics.value(HTTPMetrics.requestsTotal, ["method": "GET", "route": "/v1/customers/{id}", "status": "200"]) == 0,
                "every route's 200 series exists before its first request"
            )
            let healthz = ["method": "GET", "route": "/healthz"]
            #expect(metrics.value(HTTPMetrics.requestDuration + "_count", healthz) == 1)
            #expect(try #require(metrics.value(HTTPMetrics.requestDuration + "_sum", healthz)) > 0)
            let bounds = metrics.samples.filter { $0.name == HTTPMetrics.requestDuration + "_bucket" && $0.labels["route"] == "/healthz" }
                .compactMap { $0.labels["le"] == "+Inf" ? .infinity : $0.labels["le"].flatMap(Double.init) }
            #expect(bounds == [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, .infinity])

            // The pool, read at the scrape (LiveServer's pool has 4 connections).
            #expect(metrics.types["purse_db_pool_connections"] == "gauge")
            #expect(metrics.value("purse_db_pool_connections_max") == 4)
            #expect(metrics.value("purse_db_pool_connections", ["state": "idle"]).map { $0 >= 0 } == true)
            #expect(metrics.value("purse_db_pool_connections", ["state": "in_use"]).map { $0 >= 0 } == true)
            #expect(metrics.value("purse_db_pool_waiting") == 0)
            #expect(metrics.types["purse_db_pool_waits_total"] == "counter")
            #expect(metrics.value("purse_db_pool_wait_seconds_total") != nil)
            #expect(metrics.value("purse_db_pool_timeouts_total") == 0)
            // The webhook queue, empty.
            for name in ["purse_webhook_deliveries_pending", "purse_webhook_deliveries_due", "purse_webhook_deliveries_failed"] {
                #expect(metrics.value(name) == 0, "\(name)")
            }
            #if os(Linux)
            #expect(try #require(metrics.value("process_resident_memory_bytes")) > 1_000_000)
            let started = try #require(metrics.value("process_start_time_seconds"))
            #expect(started <= Date().timeIntervalSince1970 && started > Date().timeIntervalSince1970 - 86_400)
            #expect(metrics.types["process_cpu_seconds_total"] == "counter")
            #endif
        }
    }

    @Test func requestsCountUnderTheirRouteTemplateAndStatus() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try #require(try await api.post("/v1/customers", "email=metrics%40example.com").json["id"]?.stringValue)
            let before = try await Self.scrape(server)

            #expect(try await api.get("/v1/customers/\(customer)").status == 200)
            #expect(try await api.get("/v1/customers/\(customer)").status == 200)
            #expect(try await api.get("/v1/customers/cus_doesnotexist").status == 404)
            #expect(try await api.post("/v1/customers/\(customer)", "name=Renamed").status == 200)
            #expect(try await account.client(key: "sk_test_wrong").get("/v1/customers/\(customer)").status == 401)
            #expect(try await api.get("/v1/nothing/\(customer)").status == 404)
            #expect(try await api.send("DELETE", "/healthz").status == 404)
            #expect(try await api.send("PURGE", "/v1/customers/\(customer)").status == 404)
            let after = try await Self.scrape(server)

            func delta(_ method: String, _ route: String, _ status: Int) -> Double? {
                let labels = ["method": method, "route": route, "status": String(status)]
                guard let now = after.value(HTTPMetrics.requestsTotal, labels) else { return nil }
                return now - (before.value(HTTPMetrics.requestsTotal, labels) ?? 0)
            }
            #expect(delta("GET", "/v1/customers/{id}", 200) == 2)
            #expect(delta("GET", "/v1/customers/{id}", 404) == 1)
            #expect(delta("GET", "/v1/customers/{id}", 401) == 1)
            #expect(delta("POST", "/v1/customers/{id}", 200) == 1)
            #expect(delta("GET", HTTPMetrics.unmatchedRoute, 404) == 1)
            #expect(delta("DELETE", HTTPMetrics.unmatchedRoute, 404) == 1, "a known path with a method it does not serve")
            #expect(delta("other", HTTPMetrics.unmatchedRoute, 404) == 1, "a made-up method is not a label value")
            #expect(delta("GET", "/metrics", 200) == 1, "the first scrape")

            let retrieve = ["method": "GET", "route": "/v1/customers/{id}"]
            let count = try #require(after.value(HTTPMetrics.requestDuration + "_count", retrieve))
            #expect(count - (before.value(HTTPMetrics.requestDuration + "_count", retrieve) ?? 0) == 4)

            // Labels carry templates, methods and statuses only.
            let templates = Set(server.routes.map(\.path)).union([HTTPMetrics.unmatchedRoute])
            for sample in after.samples {
                if let route = sample.labels["route"] { #expect(templates.contains(route), "route label \(route)") }
            }
            let secrets = [
                account.id, account.secretKey, account.publishableKey, customer, "cus_doesnotexist", "sk_test_wrong", "PURGE",
                "/v1/nothing",
            ]
            for secret in secrets {
                #expect(!after.text.contains(secret), "\(secret) appears in the metrics")
            }
        }
    }

    @Test func theWebhookBacklogCountsAQueuedDelivery() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            // Port 9 (discard) on loopback: nothing listens, so the delivery stays queued for a retry.
            let endpoint = try #require(
                try await api.post("/v1/webhook_endpoints", "url=http%3A%2F%2F127.0.0.1%3A9%2F&enabled_events[]=*").json["id"]?.stringValue
            )
            _ = try await api.post("/v1/customers")
            var metrics = try await Self.scrape(server)
            #expect(metrics.value("purse_webhook_deliveries_pending") == 1)
            #expect(metrics.value("purse_webhook_deliveries_failed") == 0)
            let due = try #require(metrics.value("purse_webhook_deliveries_due"))
            #expect(due == 0 || due == 1, "due until the first attempt fails, then not until its retry")
            #expect(try #require(metrics.value("purse_webhook_oldest_due_age_seconds")) >= 0)
            #expect(!metrics.text.contains(endpoint))

            _ = try await api.post("/v1/webhook_endpoints/\(endpoint)", "disabled=true")
            metrics = try await Self.scrape(server)
            #expect(metrics.value("purse_webhook_deliveries_pending") == 0)
            #expect(metrics.value("purse_webhook_deliveries_due") == 0)
            #expect(metrics.value("purse_webhook_oldest_due_age_seconds") == 0)
            #expect(metrics.value("purse_webhook_deliveries_failed") == 1, "dropped with its endpoint")
        }
    }

    /// Whether the caches serve from memory, so an operator sees a lost change feed.
    @Test func theChangeFeedIsReported() async throws {
        try await LiveServer.with { server in
            try await CredentialCacheTests.waitForTheChangeFeed(server)
            #expect(try await Self.scrape(server).value("purse_change_feed_listening") == 1)
            #expect(try await Self.scrape(server).types["purse_change_feed_listening"] == "gauge")
            // Lost: 0 for the second before it connects again. A scrape slower than that could
            // miss it, so the feed is ended again until one sees it.
            var lost = false
            let deadline = ContinuousClock.now + .seconds(10)
            while !lost && ContinuousClock.now < deadline {
                try await server.pool.query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'purse-change-feed' AND datname = current_database()"
                )
                try await Task.sleep(for: .milliseconds(50))
                lost = try await Self.scrape(server).value("purse_change_feed_listening") == 0
            }
            #expect(lost)
            // It connects again a second later.
            try await CredentialCacheTests.eventually { try await Self.scrape(server).value("purse_change_feed_listening") == 1 }
        }
    }

    static func scrape(_ server: LiveServer) async throws -> Exposition {
        let call = try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("metrics"))
        try #require(call.status == 200)
        return try Exposition.parse(String(decoding: call.body, as: UTF8.self))
    }
}

@Suite("Metrics: the process")
struct ProcessMetricsTests {
    @Test func procStatFieldsSurviveACommandNameWithSpacesAndParentheses() throws {
        let fields = try #require(ProcessMetrics.statFields("123 (we ird) (name)) S 1 2 3"))
        #expect(fields.first == "S")
        #expect(fields.count == 4)
    }
}

/// A strict reader of Prometheus' text format: every sample belongs to a family declared by a
/// `# HELP` then a `# TYPE` line before it, each family once; histograms have ascending,
/// cumulative buckets ending in `+Inf`, which equals `_count`, and a `_sum`.
struct Exposition {
    struct Sample {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    let text: String
    private(set) var helps: [String: String] = [:]
    private(set) var types: [String: String] = [:]
    private(set) var samples: [Sample] = []

    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    static func parse(_ text: String) throws -> Exposition {
        var exposition = Exposition(text: text)
        var current: String?
        var finished: Set<String> = []
        guard text.hasSuffix("\n") else { throw Invalid(description: "the text does not end with a newline") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") {
                let parts = line.dropFirst(7).split(separator: " ", maxSplits: 1)
                let name = String(parts[0])
                guard exposition.helps[name] == nil, !finished.contains(name) else { throw Invalid(description: "\(name) declared twice") }
                if let current { finished.insert(current) }
                exposition.helps[name] = parts.count > 1 ? String(parts[1]) : ""
                current = name
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, String(parts[0]) == current, exposition.types[String(parts[0])] == nil else {
                    throw Invalid(description: "TYPE without its HELP just before: \(line)")
                }
                guard ["counter", "gauge", "histogram"].contains(parts[1]) else { throw Invalid(description: "type \(parts[1])") }
                exposition.types[String(parts[0])] = String(parts[1])
            } else {
                let sample = try sample(line)
                guard let family = current, let type = exposition.types[family] else {
                    throw Invalid(description: "a sample outside a declared family: \(line)")
                }
                let suffixes = type == "histogram" ? ["_bucket", "_sum", "_count"] : [""]
                guard suffixes.contains(where: { sample.name == family + $0 }) else {
                    throw Invalid(description: "\(sample.name) in family \(family)")
                }
                exposition.samples.append(sample)
            }
        }
        try exposition.checkHistograms()
        return exposition
    }

    private func checkHistograms() throws {
        for (family, type) in types where type == "histogram" {
            var series: [[String: String]: [(bound: Double, count: Double)]] = [:]
            for sample in samples where sample.name == family + "_bucket" {
                var labels = sample.labels
                guard let le = labels.removeValue(forKey: "le"), let bound = le == "+Inf" ? .infinity : Double(le) else {
                    throw Invalid(description: "\(family) bucket without a numeric le")
                }
                series[labels, default: []].append((bound, sample.value))
            }
            for (labels, buckets) in series {
                guard buckets.map(\.bound) == buckets.map(\.bound).sorted(), buckets.last?.bound == .infinity else {
                    throw Invalid(description: "\(family)\(labels): buckets out of order or no +Inf")
                }
                guard buckets.map(\.count) == buckets.map(\.count).sorted() else {
                    throw Invalid(description: "\(family)\(labels): buckets not cumulative")
                }
                guard value(family + "_count", labels) == buckets.last?.count, value(family + "_sum", labels) != nil else {
                    throw Invalid(description: "\(family)\(labels): _count differs from +Inf, or no _sum")
                }
            }
        }
    }

    private static func sample(_ line: Substring) throws -> Sample {
        var rest = line[...]
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }) else {
            throw Invalid(description: "bad metric name in \(line)")
        }
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "=") else { throw Invalid(description: "bad labels in \(line)") }
                let label = String(rest[..<equals])
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { throw Invalid(description: "unquoted label value in \(line)") }
                rest = rest.dropFirst()
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        guard let escaped = rest.first else { throw Invalid(description: "dangling escape in \(line)") }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "n": value.append("\n")
                        case "\\", "\"": value.append(escaped)
                        default: throw Invalid(description: "unknown escape in \(line)")
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { throw Invalid(description: "unterminated label value in \(line)") }
                rest = rest.dropFirst()
                guard labels.updateValue(value, forKey: label) == nil else { throw Invalid(description: "repeated label in \(line)") }
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw Invalid(description: "no value in \(line)") }
        let literal = rest.dropFirst()
        let value: Double? =
            switch literal {
            case "+Inf": .infinity
            case "-Inf": -.infinity
            case "NaN": .nan
            default: Double(literal)
            }
        guard let value else { throw Invalid(description: "bad value in \(line)") }
        return Sample(name: name, labels: labels, value: value)
    }
}
