import Foundation
import PurseCore
import PurseModels
import PurseServer
import TestSupport
import Testing

@Suite("Webhook endpoints")
struct WebhookEndpointTests {
    @Test func createShowsTheSecretOnceAndTheRestRoundTrips() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let created = try await api.post(
                "/v1/webhook_endpoints",
                "url=http%3A%2F%2F127.0.0.1%3A9%2Fhook&enabled_events[]=customer.created&enabled_events[]=payment_method.attached"
                    + "&description=Orders&metadata[team]=billing"
            )
            #expect(created.status == 200)
            let endpoint = created.json
            let id = try #require(endpoint["id"]?.stringValue)
            #expect(id.hasPrefix("we_"))
            #expect(endpoint["object"] == "webhook_endpoint")
            #expect(endpoint["status"] == "enabled")
            #expect(endpoint["url"] == "http://127.0.0.1:9/hook")
            #expect(endpoint["enabled_events"] == ["customer.created", "payment_method.attached"])
            #expect(endpoint["metadata"] == ["team": "billing"])
            let secret = try #require(endpoint["secret"]?.stringValue)
            #expect(secret.hasPrefix("whsec_"))

            let retrieved = try await api.get("/v1/webhook_endpoints/\(id)").json
            #expect(retrieved["secret"] == nil, "the secret is shown only at creation")
            #expect(retrieved["description"] == "Orders")

            let updated = try await api.post(
                "/v1/webhook_endpoints/\(id)", "disabled=true&enabled_events[]=*&url=https%3A%2F%2Fexample.com%2Fw&description="
            ).json
            #expect(updated["status"] == "disabled")
            #expect(updated["enabled_events"] == ["*"])
            #expect(updated["url"] == "https://example.com/w")
            #expect(updated["description"] == .null)
            #expect(try await api.post("/v1/webhook_endpoints/\(id)", "disabled=false").json["status"] == "enabled")

            let stored = try await server.pool.query("SELECT * FROM webhook_endpoints WHERE id = \(id)")
            #expect(!stored.isEmpty)
            let row = String(describing: stored[0])
            #expect(!row.contains(secret), "the signing secret is derived, never stored")

            #expect(try await api.delete("/v1/webhook_endpoints/\(id)").json == ["id": .string(id), "object": "webhook_endpoint", "deleted": true])
            #expect(try await api.get("/v1/webhook_endpoints/\(id)").status == 404)
            #expect(try await api.delete("/v1/webhook_endpoints/\(id)").status == 404)
        }
    }

    @Test func refusesBadInputAndChangesNothing() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let cases: [(form: String, param: String)] = [
                ("enabled_events[]=*", "url"),
                ("url=ftp%3A%2F%2Fexample.com&enabled_events[]=*", "url"),
                ("url=not%20a%20url&enabled_events[]=*", "url"),
                ("url=http%3A%2F%2Fexample.com", "enabled_events"),
                ("url=http%3A%2F%2Fexample.com&enabled_events[]=charge.succeeded", "enabled_events[0]"),
                ("url=http%3A%2F%2Fexample.com&enabled_events[]=*&api_version=yesterday", "api_version"),
                ("url=http%3A%2F%2Fexample.com&enabled_events[]=*&colour=red", "colour"),
            ]
            for (form, param) in cases {
                let refused = try await api.post("/v1/webhook_endpoints", form)
                #expect(refused.status == 400, "\(form)")
                #expect(refused.error?["type"] == "invalid_request_error", "\(form)")
                #expect(refused.error?["param"] == .string(param), "\(form)")
            }
            #expect(try await api.get("/v1/webhook_endpoints").json["data"] == [])

            let id = try #require(
                try await api.post("/v1/webhook_endpoints", "url=http%3A%2F%2Fexample.com&enabled_events[]=*").json["id"]?.stringValue
            )
            let refused = try await api.post("/v1/webhook_endpoints/\(id)", "url=http%3A%2F%2Fexample.com%2Fnew&enabled_events[]=nope")
            #expect(refused.error?["param"] == "enabled_events[0]")
            #expect(try await api.get("/v1/webhook_endpoints/\(id)").json["url"] == "http://example.com")
        }
    }

    @Test func theHTTPSSettingAcceptsOnlyPublicHTTPSHosts() async throws {
        var configuration = ServerConfiguration(port: 0, logLevel: .warning)
        configuration.webhooks.requireHTTPS = true
        try await LiveServer.with(configuration: configuration) { server in
            let api = try await server.makeAccount().secret
            let refused = [
                "http://example.com/hook", "https://localhost/hook", "https://127.0.0.1/hook", "https://10.1.2.3/hook",
                "https://192.168.0.4/hook", "https://[::1]/hook", "https://printer.local/hook", "https://169.254.169.254/latest",
                // Loopback in the spellings a connection reads as it, and special-use names.
                "https://localhost./hook", "https://[0:0:0:0:0:0:0:1]/hook", "https://[::]/hook", "https://2130706433/hook",
                "https://0x7f000001/hook", "https://0x7f.0.0.1/hook", "https://0177.0.0.1/hook", "https://127.1/hook",
                "https://017700000001/hook", "https://[::ffff:127.0.0.1]/hook", "https://[::ffff:7f00:1]/hook",
                "https://100.64.0.1/hook", "https://[fd00::1]/hook", "https://[fe80::1]/hook", "https://224.0.0.1/hook",
                "https://api.localhost/hook", "https://db.internal/hook", "https://nas.home.arpa/hook", "https://x.test/hook",
                "https://x.invalid./hook",
            ]
            for url in refused {
                let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let response = try await api.post("/v1/webhook_endpoints", "url=\(encoded)&enabled_events[]=*")
                #expect(response.status == 400, "\(url)")
                #expect(response.error?["param"] == "url", "\(url)")
            }
            let accepted = try await api.post("/v1/webhook_endpoints", "url=https%3A%2F%2Fhooks.example.com%2Fpurse&enabled_events[]=*")
            #expect(accepted.status == 200)
            let id = try #require(accepted.json["id"]?.stringValue)
            let moved = try await api.post("/v1/webhook_endpoints/\(id)", "url=https%3A%2F%2F2130706433%2F")
            #expect(moved.status == 400 && moved.error?["param"] == "url", "an update is checked as a creation")
            #expect(try await api.get("/v1/webhook_endpoints/\(id)").json["url"] == "https://hooks.example.com/purse")
        }
    }

    /// A name that does not resolve when it is registered is accepted (every delivery checks it
    /// again); the operator's allow-list exempts names and blocks of addresses.
    @Test func theHTTPSSettingAcceptsUnresolvedNamesAndTheAllowList() async throws {
        var configuration = ServerConfiguration(port: 0, logLevel: .warning)
        configuration.webhooks.requireHTTPS = true
        configuration.webhooks.allowedHosts = try WebhookAllowList(parsing: "receiver,10.0.0.0/8")
        let resolver = ScriptedResolver(["receiver": [.addresses(["172.18.0.5"])], "loopback.example.com": [.addresses(["127.0.0.1"])]])
        try await LiveServer.with(configuration: configuration, webhookNetwork: WebhookNetwork(resolver: resolver)) { server in
            let api = try await server.makeAccount().secret
            for (url, status) in [
                ("https://not-yet.example.com/hook", 200), ("https://receiver:8443/hook", 200), ("https://10.1.2.3/hook", 200),
                ("https://[::ffff:10.1.2.3]/hook", 200), ("https://loopback.example.com/hook", 400), ("https://11.0.0.1.invalid/", 400),
                ("https://192.168.0.4/hook", 400), ("http://receiver/hook", 400),
            ] {
                let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let response = try await api.post("/v1/webhook_endpoints", "url=\(encoded)&enabled_events[]=*")
                #expect(response.status == status, "\(url): \(response.json)")
            }
            #expect(resolver.asked.contains("not-yet.example.com."))
            #expect(resolver.asked.contains("receiver"), "an allowed name is looked up as written")
        }
    }

    @Test func listsPageAndStayWithinTheirAccount() async throws {
        try await LiveServer.with { server in
            let mine = try await server.makeAccount().secret
            let theirs = try await server.makeAccount().secret
            var ids: [String] = []
            for index in 0..<3 {
                let endpoint = try await mine.post("/v1/webhook_endpoints", "url=http%3A%2F%2Fexample.com%2F\(index)&enabled_events[]=*")
                ids.append(try #require(endpoint.json["id"]?.stringValue))
            }
            let first = try await mine.get("/v1/webhook_endpoints", query: "limit=2").json
            #expect(first["has_more"] == true)
            #expect(first["url"] == "/v1/webhook_endpoints")
            #expect(first["data"]?.arrayValue?.map { $0["id"] } == [.string(ids[2]), .string(ids[1])])
            let second = try await mine.get("/v1/webhook_endpoints", query: "limit=2&starting_after=\(ids[1])").json
            #expect(second["data"]?.arrayValue?.map { $0["id"] } == [.string(ids[0])])
            #expect(second["has_more"] == false)

            #expect(try await theirs.get("/v1/webhook_endpoints").json["data"] == [])
            #expect(try await theirs.get("/v1/webhook_endpoints/\(ids[0])").status == 404)
            #expect(try await theirs.post("/v1/webhook_endpoints/\(ids[0])", "disabled=true").status == 404)
            #expect(try await theirs.delete("/v1/webhook_endpoints/\(ids[0])").status == 404)
            #expect(try await theirs.get("/v1/webhook_endpoints/\(ids[0])/deliveries").status == 404)
            #expect(try await mine.get("/v1/webhook_endpoints/\(ids[0])").json["status"] == "enabled")
        }
    }

    @Test func needTheSecretKey() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let response = try await account.publishable.post("/v1/webhook_endpoints", "url=http%3A%2F%2Fexample.com&enabled_events[]=*")
            #expect(response.status == 403)
            #expect(response.error?["code"] == "secret_key_required")
            #expect(try await account.secret.get("/v1/webhook_endpoints").json["data"] == [])
        }
    }
}
