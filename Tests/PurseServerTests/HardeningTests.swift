import Foundation
import PurseCore
import PurseModels
import TestSupport
import Testing

@testable import PurseServer

/// The probes of the security review (issue 27), each as it was run against Purse, and what
/// Purse answers now. Webhook destinations have their own suite; idempotency scopes are in
/// IdempotencyTests.
@Suite("Hardening against hostile clients")
struct HardeningTests {
    // MARK: Oversize bodies (findings 2 and 9)

    @Test func anOversizeFormOnTheAuthenticationPageIs413NotA500() async throws {
        try await LiveServer.with { server in
            let call = try await HTTPCall.send(
                "POST", server.baseURL.appendingPathComponent("v1/setup_intents/seti_x/authenticate/anything"),
                body: "action=complete&padding=" + String(repeating: "a", count: 5000)
            )
            #expect(call.status == 413)
            #expect(call.header("Content-Type")?.hasPrefix("text/html") == true)
        }
    }

    @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeTheBodyIsRead() async throws {
        try await LiveServer.with(configuration: ServerConfiguration(port: 0, logLevel: .warning, readTimeout: 30)) { server in
            let account = try await server.makeAccount()
            let connection = try await RawHTTPConnection.open(port: server.port)
            // Headers only: a server that waited for the body would answer after the read timeout.
            try await connection.write(
                "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(account.secretKey)\r\n"
                    + "Content-Length: 999999999\r\n\r\n"
            )
            let response = try await connection.response(timeout: 20)
            #expect(response.status == 413)
            let page = try await RawHTTPConnection.open(port: server.port)
            try await page.write("POST /v1/setup_intents/seti_x/authenticate/t HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
            #expect(try await page.response(timeout: 20).status == 413)
        }
    }

    // MARK: Client aborts (finding 3)

    @Test func aClientThatHangsUpMidBodyIsNotAServerError() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            do {
                let connection = try await RawHTTPConnection.open(port: server.port)
                try await connection.write(
                    "POST /v1/payment_methods HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(account.publishableKey)\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntype=card"
                )
            }  // closed here, 91 bytes short
            let series = #"purse_http_requests_total{method="POST",route="/v1/payment_methods",status="#
            var text = ""
            for _ in 0..<100 {
                text = String(decoding: try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("metrics")).body, as: UTF8.self)
                if text.contains(series + #""499"} 1"#) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(text.contains(series + #""499"} 1"#))
            #expect(!text.contains(series + #""500"}"#))
        }
    }

    // MARK: return_url (finding 4)

    @Test(arguments: [
        "javascript:alert(document.cookie)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)", "file:///etc/passwd", "blob:https://x.example/1", "not a url", "https://", "//evil.example/x",
        "myapp:", "https://exa mple.com/", "https://example.com/\r\nLocation: x",
    ])
    func returnURLsThatAreNotPlacesToSendACustomerAreRefused(returnURL: String) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let intent = try await account.secret.post("/v1/setup_intents", "payment_method_types[0]=card").json
            let form =
                "client_secret=\(intent["client_secret"]?.stringValue ?? "")&payment_method=pm_card_visa&return_url="
                + (returnURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            let refused = try await account.publishable.post("/v1/setup_intents/\(intent["id"]?.stringValue ?? "")/confirm", form)
            #expect(refused.status == 400)
            #expect(refused.error?["code"] == "url_invalid")
            #expect(refused.error?["param"] == "return_url")
            let created = try await account.secret.post(
                "/v1/setup_intents",
                "payment_method=pm_card_visa&confirm=true&return_url="
                    + (returnURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            )
            #expect(created.status == 400)
            #expect(created.error?["param"] == "return_url")
            #expect(try await account.secret.get("/v1/setup_intents").json["data"]?.arrayValue?.count == 1, "nothing was created")
        }
    }

    @Test(arguments: [
        "https://shop.example/after", "http://127.0.0.1:8080/back", "myapp://stripe-redirect",
        "stripesdk://payment_return_url/com.example.app", "com.example.app:/callback",
    ])
    func webAndAppReturnURLsAreAccepted(returnURL: String) async throws {
        #expect(try ReturnURL.checked(returnURL) == returnURL)
    }

    // MARK: The page's browser protections (finding 5)

    @Test func theAuthenticationPageForbidsFramingScriptsAndReferrers() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let created = try await account.secret.post(
                "/v1/setup_intents", "payment_method=pm_card_authenticationRequired&confirm=true&return_url=myapp%3A%2F%2Fdone"
            )
            let url = try #require(created.json["next_action"]?["redirect_to_url"]?["url"]?.stringValue.flatMap(URL.init(string:)))
            let page = try await HTTPCall.send("GET", url)
            #expect(page.status == 200)
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("script-src") && !policy.contains("unsafe-inline"))
            // The POST's redirect to the app must stay allowed: browsers apply form-action to it.
            #expect(policy.contains("form-action 'self' myapp:"))
            #expect(policy.contains("style-src '\(HTMLPage.styleHash)'"))
            #expect(page.header("X-Frame-Options") == "DENY")
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("Referrer-Policy") == "no-referrer")
            let body = String(decoding: page.body, as: UTF8.self)
            #expect(body.contains("<style>\(HTMLPage.styleSheet)</style>"))
            #expect(!body.contains("<script") && !body.contains("style=\""))
        }
    }

    @Test func theAuthenticationPageTakesNoVerdictFromAnotherSite() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let created = try await account.secret.post("/v1/setup_intents", "payment_method=pm_card_authenticationRequired&confirm=true")
            let id = try #require(created.json["id"]?.stringValue)
            let url = try #require(created.json["next_action"]?["redirect_to_url"]?["url"]?.stringValue.flatMap(URL.init(string:)))
            for from in [["Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-site"], ["Origin": "https://evil.example"]] {
                let refused = try await HTTPCall.send("POST", url, headers: from, body: "action=complete")
                #expect(refused.status == 403, "\(from)")
            }
            #expect(try await account.secret.get("/v1/setup_intents/\(id)").json["status"] == "requires_action")
            // The page's own form: same-origin, or `Origin: null` under its no-referrer policy.
            let decided = try await HTTPCall.send("POST", url, headers: ["Origin": "null"], body: "action=complete")
            #expect(decided.status == 200)
            #expect(try await account.secret.get("/v1/setup_intents/\(id)").json["status"] == "succeeded")
        }
    }

    // MARK: Emails and single-line fields (finding 7)

    @Test(arguments: [
        "not-an-email", "a@example.com\r\nBcc: victim@example.com", "a@example.com<script>", "a b@example.com",
        "@example.com", "a@", "a@b@example.com", "a\u{7}@example.com", String(repeating: "a", count: 501) + "@example.com",
    ])
    func emailsAreCheckedAsStripeChecksThem(email: String) async throws {
        #expect(throws: PurseError.self) { try TextRules.email(email, param: "email") }
        let error = try? #require(throws: PurseError.self) { try TextRules.email(email, param: "email") }
        #expect(error?.code == "email_invalid")
        #expect(error?.param == "email")
    }

    @Test func badEmailsAndLineBreaksAreRefusedThroughTheAPI() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
            for (form, param) in [
                ("email=" + encode("a@example.com\r\nBcc: victim@example.com"), "email"),
                ("email=not-an-email", "email"),
                ("name=" + encode("Jenny\r\nRosen"), "name"),
                ("phone=" + encode("555\n0100"), "phone"),
                ("description=" + encode("line one\nline two"), "description"),
                ("shipping[name]=" + encode("A\nB") + "&shipping[address][line1]=x", "shipping[name]"),
            ] {
                let refused = try await account.secret.post("/v1/customers", form)
                #expect(refused.status == 400, "\(form)")
                #expect(refused.error?["param"]?.stringValue == param)
            }
            let badBilling = try await account.publishable.post(
                "/v1/payment_methods", "type=card&card[token]=tok_visa&billing_details[email]=" + encode("x@y.io<script>")
            )
            #expect(badBilling.error?["code"] == "email_invalid")
            #expect(badBilling.error?["param"] == "billing_details[email]")
            #expect(try await account.secret.get("/v1/customers").json["data"]?.arrayValue?.isEmpty == true)
            #expect(try await account.secret.post("/v1/customers", "email=jenny.rosen%2Btag%40example.com").status == 200)
        }
    }

    // MARK: Guessed keys (finding 8)

    @Test func guessedKeysAreLimitedPerClientAddress() async throws {
        let limited = ServerConfiguration(
            port: 0, logLevel: .warning, rateLimit: ServerConfiguration.RateLimit(rate: 1.0 / 60, burst: 5)
        )
        try await LiveServer.with(configuration: limited) { server in
            let account = try await server.makeAccount()
            try await CredentialCacheTests.waitForTheChangeFeed(server)
            #expect(try await account.secret.get("/v1/customers").status == 200)
            var statuses: [Int] = []
            for _ in 0..<40 {
                let guess = "sk_test_" + ObjectID.randomBase62(length: 24)
                statuses.append(try await APIClient(baseURL: server.baseURL, key: guess).get("/v1/customers").status)
            }
            // Five lookups, then refused before any lookup.
            #expect(statuses.filter { $0 == 401 }.count == 5)
            #expect(statuses.filter { $0 == 429 }.count == 35)
            // A key the server already holds still works from that address; an unknown one does not
            // get looked up.
            #expect(try await account.secret.get("/v1/customers").status == 200)
            let other = try await server.makeAccount()
            #expect(try await other.secret.get("/v1/customers").status == 429)
        }
    }

    /// On a cluster of its own: any announced key change, which other suites make all the time on
    /// the shared test database, would empty the memory this test watches.
    @Test(.scaledTimeLimit(minutes: 2))
    func anUnknownKeyIsRememberedUntilAKeyChanges() async throws {
        let cluster = try await TestPostgres.startThrowawayCluster()
        defer { TestPostgres.destroy(cluster) }
        let server = try await LiveServer.start(database: try cluster.configuration())
        do {
            let account = try await server.makeAccount()
            try await CredentialCacheTests.waitForTheChangeFeed(server)
            let key = "sk_test_" + ObjectID.randomBase62(length: 24)
            #expect(try await APIClient(baseURL: server.baseURL, key: key).get("/v1/customers").status == 401)
            // The key appears in the table behind the server's back (no announcement): the server,
            // remembering it as unknown, does not look again.
            try await server.pool.query(
                """
                INSERT INTO api_keys (id, account_id, kind, secret_hash, last4, created)
                VALUES ('key_planted', \(account.id), 'secret', \(SecretHash.sha256(key)), 'abcd', 0)
                """
            )
            #expect(try await APIClient(baseURL: server.baseURL, key: key).get("/v1/customers").status == 401)
            // Any announced change to a key empties the memory, and the key is looked up again.
            try await server.pool.query("UPDATE api_keys SET last4 = 'efgh' WHERE id = 'key_planted'")
            try await CredentialCacheTests.eventually {
                try await APIClient(baseURL: server.baseURL, key: key).get("/v1/customers").status == 200
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func theClientAddressComesFromTrustedProxiesOnly() throws {
        let direct = ClientAddress(trustedProxies: [])
        #expect(direct.of(peer: "203.0.113.9", forwardedFor: "198.51.100.1") == "203.0.113.9")
        let proxied = ClientAddress(trustedProxies: [try #require(IPRange("10.0.0.0/8")), try #require(IPRange("::1"))])
        #expect(proxied.of(peer: "10.1.2.3", forwardedFor: "198.51.100.1") == "198.51.100.1")
        // What the client wrote at the left is not trusted: the rightmost untrusted hop is the client.
        #expect(proxied.of(peer: "10.1.2.3", forwardedFor: "1.2.3.4, 198.51.100.7, 10.0.0.5") == "198.51.100.7")
        #expect(proxied.of(peer: "::1", forwardedFor: "2001:db8::1") == "2001:db8::1")
        #expect(proxied.of(peer: "203.0.113.9", forwardedFor: "1.2.3.4") == "203.0.113.9")
        #expect(proxied.of(peer: "10.1.2.3", forwardedFor: nil) == "10.1.2.3")
        #expect(try #require(IPRange("10.0.0.0/8")).contains("::ffff:10.9.8.7"))
        #expect(IPRange("10.0.0.0/33") == nil && IPRange("nonsense") == nil && IPRange("10.0.0.1/") == nil)
    }
}
