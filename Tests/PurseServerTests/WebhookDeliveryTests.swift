import Foundation
import PurseCore
import PurseModels
import PurseServer
import TestSupport
import Testing

@Suite("Webhook delivery")
struct WebhookDeliveryTests {
    /// Retries a second after each failure, so the tests need not wait minutes.
    static let quickRetries: ServerConfiguration = {
        var configuration = ServerConfiguration(port: 0, logLevel: .warning)
        configuration.webhooks.retrySchedule = [1]
        configuration.webhooks.pollInterval = .milliseconds(100)
        return configuration
    }()

    @Test func deliversTheEventSignedWithALength() async throws {
        try await LiveServer.with(configuration: Self.quickRetries) { server in
            try await WebhookReceiver.with { receiver in
                let api = try await server.makeAccount().secret
                let endpoint = try await api.post("/v1/webhook_endpoints", "url=\(Self.encoded(receiver.url, "/orders"))&enabled_events[]=*").json
                let secret = try #require(endpoint["secret"]?.stringValue)
                let endpointID = try #require(endpoint["id"]?.stringValue)
                let customer = try #require(try await api.post("/v1/customers", "email=a%40b.co").json["id"]?.stringValue)

                let delivery = try #require(try await receiver.waitForDeliveries(1).first)
                #expect(delivery.path == "/orders")
                #expect(delivery.contentLength == String(delivery.body.count))
                #expect(delivery.transferEncoding == nil)
                #expect(delivery.contentType?.hasPrefix("application/json") == true)
                let signature = try #require(delivery.signature)
                let timestamp = try #require(signature.split(separator: ",").first.flatMap { Int($0.dropFirst(2)) })
                #expect(abs(timestamp - Int(Date().timeIntervalSince1970)) < 60)
                #expect(signature == WebhookSignature.header(secret: secret, timestamp: timestamp, body: delivery.body))

                let event = delivery.json
                #expect(event["type"] == "customer.created")
                #expect(event["data"]?["object"]?["id"] == .string(customer))
                let eventID = try #require(event["id"]?.stringValue)
                var stored = try await api.get("/v1/events/\(eventID)").json
                #expect(stored["data"] == event["data"])

                let attempts = try await Self.waitForAttempts(1, endpoint: endpointID, api: api)
                #expect(attempts[0]["event"] == .string(eventID))
                #expect(attempts[0]["status_code"] == 200)
                #expect(attempts[0]["next_retry_at"] == .null)
                #expect(attempts[0]["duration_ms"]?.intValue.map { $0 >= 0 } == true)
                stored = try await api.get("/v1/events/\(eventID)").json
                #expect(stored["pending_webhooks"] == 0)
            }
        }
    }

    @Test func retriesAfterFailuresUntilDelivered() async throws {
        try await LiveServer.with(configuration: Self.quickRetries) { server in
            try await WebhookReceiver.with { receiver in
                receiver.reply(with: [500, 302])
                let api = try await server.makeAccount().secret
                let endpointID = try await Self.endpoint(api, receiver, events: "*")
                _ = try await api.post("/v1/customers")

                let deliveries = try await receiver.waitForDeliveries(3)
                #expect(Set(deliveries.map { $0.json["id"] }).count == 1, "every attempt carries the same event")
                let attempts = try await Self.waitForAttempts(3, endpoint: endpointID, api: api)
                #expect(attempts.map { $0["status_code"] } == [200, 302, 500], "newest first; a redirect is not followed")
                #expect(attempts[0]["next_retry_at"] == .null)
                for failed in attempts.dropFirst() {
                    let retry = try #require(failed["next_retry_at"]?.intValue)
                    let created = try #require(failed["created"]?.intValue)
                    #expect(retry - created == 1)
                }
                try await Task.sleep(for: .milliseconds(1500))
                #expect(receiver.deliveries.count == 3, "a delivered event is not sent again")
            }
        }
    }

    @Test func anUnreachableEndpointIsRecordedAndGivenUpOn() async throws {
        var configuration = Self.quickRetries
        configuration.webhooks.giveUpAfter = 0
        try await LiveServer.with(configuration: configuration) { server in
            let api = try await server.makeAccount().secret
            // Port 9 (discard) on loopback: nothing listens there.
            let endpointID = try #require(
                try await api.post("/v1/webhook_endpoints", "url=http%3A%2F%2F127.0.0.1%3A9%2F&enabled_events[]=*").json["id"]?.stringValue
            )
            _ = try await api.post("/v1/customers")
            let attempts = try await Self.waitForAttempts(1, endpoint: endpointID, api: api)
            #expect(attempts[0]["status_code"] == .null)
            #expect(attempts[0]["error"] == "connection_failed")
            #expect(attempts[0]["next_retry_at"] == .null, "past give-up-after, there is no next attempt")
            let states = try await server.pool.query("SELECT state FROM webhook_deliveries WHERE endpoint_id = \(endpointID)")
            #expect(try states.map { try $0["state", as: String.self] } == ["failed"])
        }
    }

    /// A stored event that can no longer be read (corrupted by hand, say) is given up on, so it
    /// cannot stop the deliveries queued behind it.
    @Test func anUnreadableEventDoesNotHoldUpTheQueue() async throws {
        // Retries an hour apart, so none comes before the test makes it due.
        var configuration = Self.quickRetries
        configuration.webhooks.retrySchedule = [3600]
        try await LiveServer.with(configuration: configuration) { server in
            try await WebhookReceiver.with { receiver in
                receiver.reply(with: [500])
                let api = try await server.makeAccount().secret
                let endpointID = try await Self.endpoint(api, receiver, events: "*")
                _ = try await api.post("/v1/customers")
                // Its first attempt failed. Its event is spoilt, and its retry made due at once:
                // it heads the queue, before the next event's delivery.
                let first = try await Self.waitForAttempts(1, endpoint: endpointID, api: api)
                let spoilt = try #require(first[0]["event"]?.stringValue)
                try await server.pool.withTransaction { connection in
                    try await connection.query("UPDATE events SET data = '[1]' WHERE id = \(spoilt)")
                    try await connection.query(
                        "UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 second' WHERE event_id = \(spoilt)"
                    )
                }
                let next = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)

                let delivered = try await receiver.waitForDeliveries(2)
                #expect(delivered[1].json["data"]?["object"]?["id"] == .string(next))
                let states = try await server.pool.query(
                    "SELECT state FROM webhook_deliveries WHERE event_id = \(spoilt)"
                )
                #expect(try states.map { try $0["state", as: String.self] } == ["failed"])
            }
        }
    }

    @Test func onlyEnabledEndpointsThatWantTheTypeGetADelivery() async throws {
        try await LiveServer.with(configuration: Self.quickRetries) { server in
            try await WebhookReceiver.with { receiver in
                let api = try await server.makeAccount().secret
                let other = try await server.makeAccount().secret
                let wanted = try await Self.endpoint(api, receiver, path: "/created", events: "customer.created")
                let disabled = try await Self.endpoint(api, receiver, path: "/disabled", events: "*")
                _ = try await api.post("/v1/webhook_endpoints/\(disabled)", "disabled=true")
                _ = try await Self.endpoint(other, receiver, path: "/other", events: "*")

                let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
                _ = try await api.post("/v1/customers/\(customer)", "name=Renamed")

                let counts = try await server.pool.query(
                    """
                    SELECT w.id, count(d.seq)::int AS deliveries FROM webhook_endpoints w
                    LEFT JOIN webhook_deliveries d ON d.endpoint_id = w.id GROUP BY w.id
                    """
                )
                let byEndpoint = try Dictionary(
                    uniqueKeysWithValues: counts.map { (try $0["id", as: String.self], try $0["deliveries", as: Int32.self]) })
                #expect(byEndpoint[wanted] == 1, "customer.created only, not customer.updated")
                #expect(byEndpoint[disabled] == 0)
                #expect(byEndpoint.values.reduce(0, +) == 1, "another account's endpoint hears nothing")

                let delivered = try await receiver.waitForDeliveries(1)
                #expect(delivered.map(\.path) == ["/created"])
                #expect(delivered[0].json["type"] == "customer.created")
            }
        }
    }

    @Test func aSlowEndpointDoesNotHoldUpOthers() async throws {
        // The slow send never times out during the test, so nothing but a worker that sends in
        // parallel delivers the fast one.
        var configuration = Self.quickRetries
        configuration.webhooks.timeout = .seconds(120)
        try await LiveServer.with(configuration: configuration) { server in
            try await WebhookReceiver.with { receiver in
                receiver.hold("/slow")
                defer { receiver.release("/slow") }
                let api = try await server.makeAccount().secret
                _ = try await Self.endpoint(api, receiver, path: "/slow", events: "customer.created")
                _ = try await Self.endpoint(api, receiver, path: "/fast", events: "customer.updated")
                let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
                _ = try await receiver.waitForDeliveries(1)
                // The slow endpoint has not answered, and will not until the end: the fast one
                // is delivered meanwhile, or waitForDeliveries fails.
                _ = try await api.post("/v1/customers/\(customer)", "name=Quick")
                let delivered = try await receiver.waitForDeliveries(2)
                #expect(delivered.map(\.path) == ["/slow", "/fast"])
            }
        }
    }

    @Test func disablingDropsWhatWasQueued() async throws {
        try await LiveServer.with(configuration: Self.quickRetries) { server in
            let api = try await server.makeAccount().secret
            let endpointID = try #require(
                try await api.post("/v1/webhook_endpoints", "url=http%3A%2F%2F127.0.0.1%3A9%2F&enabled_events[]=*").json["id"]?.stringValue
            )
            _ = try await api.post("/v1/customers")
            let attempts = try await Self.waitForAttempts(1, endpoint: endpointID, api: api)
            #expect(attempts[0]["next_retry_at"] != .null, "a refused connection is retried")
            let eventID = try #require(attempts[0]["event"]?.stringValue)
            #expect(try await api.get("/v1/events/\(eventID)").json["pending_webhooks"] == 1)

            _ = try await api.post("/v1/webhook_endpoints/\(endpointID)", "disabled=true")
            #expect(try await api.get("/v1/events/\(eventID)").json["pending_webhooks"] == 0)
            let states = try await server.pool.query("SELECT state FROM webhook_deliveries WHERE endpoint_id = \(endpointID)")
            #expect(try states.map { try $0["state", as: String.self] } == ["failed"])
        }
    }

    /// The https-only mode against a name that rebinds: it resolved to a public address when it
    /// was registered, and to loopback at delivery. The attempt is refused, its class recorded,
    /// and nothing connects; an allowed name at the same kind of listener is connected to, so
    /// the listener would have counted a connection.
    @Test func aNameThatRebindsToLoopbackIsRefusedWithoutAConnection() async throws {
        var configuration = Self.quickRetries
        configuration.webhooks.requireHTTPS = true
        configuration.webhooks.allowedHosts = try WebhookAllowList(parsing: "allowed.example.com")
        let resolver = ScriptedResolver([
            "rebind.example.com": [.addresses(["93.184.215.14"]), .addresses(["127.0.0.1"])],
            "allowed.example.com": [.addresses(["127.0.0.1"])],
        ])
        try await LiveServer.with(configuration: configuration, webhookNetwork: WebhookNetwork(resolver: resolver)) { server in
            try await ConnectionCounter.with { rebound in
                try await ConnectionCounter.with { allowed in
                    let api = try await server.makeAccount().secret
                    let refused = try await Self.endpoint(api, URL(string: "https://rebind.example.com:\(rebound.port)")!, events: "*")
                    let control = try await Self.endpoint(api, URL(string: "https://allowed.example.com:\(allowed.port)")!, events: "*")
                    _ = try await api.post("/v1/customers")

                    let attempts = try await Self.waitForAttempts(1, endpoint: refused, api: api)
                    #expect(attempts[0]["error"] == "destination_not_allowed")
                    #expect(attempts[0]["status_code"] == .null)
                    #expect(attempts[0]["next_retry_at"] != .null, "checked again at the next attempt")
                    let controlAttempts = try await Self.waitForAttempts(1, endpoint: control, api: api)
                    // The listener closes at once: the handshake fails, or the connection does.
                    #expect(["tls_failure", "connection_failed"].map(JSONValue.string).contains(controlAttempts[0]["error"] ?? .null))
                    #expect(allowed.accepted >= 1)
                    #expect(rebound.accepted == 0)
                    #expect(resolver.asked.filter { $0.hasPrefix("rebind") }.count >= 2, "looked up at registration and delivery")
                }
            }
        }
    }

    /// The delivery goes to the address the lookup gave, and the request names the URL's host.
    @Test func deliversToTheCheckedAddressWithTheURLsHost() async throws {
        let resolver = ScriptedResolver("hooks.example.com", ["127.0.0.1"])
        try await LiveServer.with(configuration: Self.quickRetries, webhookNetwork: WebhookNetwork(resolver: resolver)) { server in
            try await WebhookReceiver.with { receiver in
                let api = try await server.makeAccount().secret
                let endpointID = try await Self.endpoint(api, URL(string: "http://hooks.example.com:\(receiver.port)")!, events: "*")
                _ = try await api.post("/v1/customers")
                let delivery = try #require(try await receiver.waitForDeliveries(1).first)
                #expect(delivery.host == "hooks.example.com:\(receiver.port)")
                #expect(try await Self.waitForAttempts(1, endpoint: endpointID, api: api)[0]["status_code"] == 200)
                #expect(resolver.asked == ["hooks.example.com"], "one lookup, at delivery; none at registration by default")
            }
        }
    }

    /// https end to end in the https-only mode, to a name on the allow-list whose certificate
    /// comes from the test's own authority (given as the only trust root).
    @Test func deliversOverHTTPSToAnAllowedName() async throws {
        let authority = try TestCertificateAuthority()
        var configuration = Self.quickRetries
        configuration.webhooks.requireHTTPS = true
        configuration.webhooks.allowedHosts = try WebhookAllowList(parsing: "hooks.example.com")
        let network = WebhookNetwork(
            resolver: ScriptedResolver("hooks.example.com", ["127.0.0.1"]), trustRoots: .certificates([authority.certificate])
        )
        try await LiveServer.with(configuration: configuration, webhookNetwork: network) { server in
            try await WebhookReceiver.with(tls: try authority.serverConfiguration(for: ["hooks.example.com"])) { receiver in
                let api = try await server.makeAccount().secret
                let created = try await api.post(
                    "/v1/webhook_endpoints",
                    "url=\(Self.encoded(URL(string: "https://hooks.example.com:\(receiver.port)")!, "/tls"))&enabled_events[]=*"
                ).json
                let endpointID = try #require(created["id"]?.stringValue)
                let secret = try #require(created["secret"]?.stringValue)
                _ = try await api.post("/v1/customers")

                let delivery = try #require(try await receiver.waitForDeliveries(1).first)
                #expect(delivery.path == "/tls" && delivery.host == "hooks.example.com:\(receiver.port)")
                let signature = try #require(delivery.signature)
                let timestamp = try #require(signature.split(separator: ",").first.flatMap { Int($0.dropFirst(2)) })
                #expect(signature == WebhookSignature.header(secret: secret, timestamp: timestamp, body: delivery.body))
                let attempts = try await Self.waitForAttempts(1, endpoint: endpointID, api: api)
                #expect(attempts[0]["status_code"] == 200 && attempts[0]["error"] == .null)

                // Not on the allow-list, the same loopback receiver is refused at registration.
                let refused = try await api.post("/v1/webhook_endpoints", "url=https%3A%2F%2F127.0.0.1%3A\(receiver.port)%2F&enabled_events[]=*")
                #expect(refused.status == 400 && refused.error?["param"] == "url")
            }
        }
    }

    private static func encoded(_ base: URL, _ path: String) -> String {
        (base.absoluteString + path).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    private static func endpoint(_ api: APIClient, _ receiver: WebhookReceiver, path: String = "/hook", events: String) async throws -> String {
        try await endpoint(api, receiver.url, path: path, events: events)
    }

    private static func endpoint(_ api: APIClient, _ base: URL, path: String = "/hook", events: String) async throws -> String {
        let created = try await api.post("/v1/webhook_endpoints", "url=\(encoded(base, path))&enabled_events[]=\(events)")
        return try #require(created.json["id"]?.stringValue, "\(created.json)")
    }

    /// The endpoint's attempts, newest first, once at least `count` are recorded.
    private static func waitForAttempts(_ count: Int, endpoint: String, api: APIClient) async throws -> [JSONValue] {
        // Generous: under ThreadSanitizer with every suite running, three attempts a second
        // apart took over 15 s.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let attempts = try await api.get("/v1/webhook_endpoints/\(endpoint)/deliveries").json["data"]?.arrayValue ?? []
            if attempts.count >= count { return attempts }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("Expected \(count) recorded attempts for \(endpoint)")
    }
}
