import Foundation
import PurseCore
import PurseModels
import TestSupport
import Testing

/// The customer portal: configurations and sessions over the API, and the pages a session's URL
/// opens, driven over plain HTTP (the browser tests drive them in Chromium). Each page test acts
/// as the customer's browser would: it follows the page's own links and forms.
@Suite("Customer portal")
struct BillingPortalTests {
    @Test func everyAccountHasADefaultConfigurationThatCannotBeDeactivated() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let list = try await api.get("/v1/billing_portal/configurations", query: "is_default=true")
            let configurations = try #require(list.json["data"]?.arrayValue)
            #expect(configurations.count == 1)
            let id = try #require(configurations.first?["id"]?.stringValue)
            #expect(configurations.first?["features"]?["payment_method_update"]?["enabled"] == true)
            #expect(configurations.first?["login_page"] == ["enabled": false, "url": nil])
            let refused = try await api.post("/v1/billing_portal/configurations/\(id)", "active=false")
            #expect(refused.status == 400)
            #expect(refused.error?["param"] == "active")
            // Asking again does not make a second default.
            #expect(try await api.get("/v1/billing_portal/configurations").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func onlyThePaymentMethodFeatureCanBeTurnedOn() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            #expect(try await api.post("/v1/billing_portal/configurations", "name=x").error?["param"] == "features")
            for feature in ["invoice_history", "subscription_cancel", "subscription_pause", "subscription_update", "customer_update"] {
                let refused = try await api.post(
                    "/v1/billing_portal/configurations", "features[payment_method_update][enabled]=true&features[\(feature)][enabled]=true"
                )
                #expect(refused.status == 400)
                #expect(refused.error?["param"]?.stringValue == "features[\(feature)][enabled]")
            }
            let created = try await api.post(
                "/v1/billing_portal/configurations",
                "features[payment_method_update][enabled]=false&features[invoice_history][enabled]=false&name=Read%20only"
                    + "&business_profile[headline]=Acme&default_return_url=https://example.com/account"
            )
            #expect(created.status == 200)
            #expect(created.json["features"]?["payment_method_update"]?["enabled"] == false)
            #expect(created.json["is_default"] == false)
            #expect(created.json["default_return_url"] == "https://example.com/account")
            let id = try #require(created.json["id"]?.stringValue)
            let updated = try await api.post("/v1/billing_portal/configurations/\(id)", "active=false&name=")
            #expect(updated.json["active"] == false)
            #expect(updated.json["name"] == .null)
            let event = try await api.get("/v1/events", query: "type=billing_portal.configuration.updated")
            #expect(event.json["data"]?[0]?["data"]?["previous_attributes"]?["active"] == true)
            #expect(try await api.get("/v1/billing_portal/configurations", query: "active=false").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func aSessionShowsItsURLOnceAndChecksWhatItIsGiven() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let session = try await api.post("/v1/billing_portal/sessions", "customer=\(customer)&return_url=https://example.com/back&locale=fr")
            #expect(session.status == 200)
            let url = try #require(session.json["url"]?.stringValue)
            let id = try #require(session.json["id"]?.stringValue)
            #expect(url.hasPrefix("\(server.baseURL.absoluteString)/p/session/\(id)/test_"))
            #expect(session.json["flow"] == .null)
            #expect(session.json["locale"] == "fr")
            #expect(session.json["return_url"] == "https://example.com/back")
            let event = try await api.get("/v1/events", query: "type=billing_portal.session.created")
            #expect(event.json["data"]?[0]?["data"]?["object"]?["url"] == .null)
            let token = try #require(url.split(separator: "/").last.map(String.init))
            let stored = try await server.pool.query("SELECT count(*) AS n FROM events WHERE data::text LIKE '%' || \(token) || '%'")
            #expect(try stored[0]["n", as: Int.self] == 0)

            #expect(try await api.post("/v1/billing_portal/sessions", "customer=cus_missing").error?["param"] == "customer")
            #expect(try await api.post("/v1/billing_portal/sessions", "customer=\(customer)&locale=xx").error?["param"] == "locale")
            #expect(
                try await api.post("/v1/billing_portal/sessions", "customer=\(customer)&flow_data[type]=subscription_cancel").error?["param"]
                    == "flow_data[type]")
            #expect(
                try await api.post(
                    "/v1/billing_portal/sessions",
                    "customer=\(customer)&flow_data[type]=payment_method_update&flow_data[after_completion][type]=redirect"
                ).error?["param"] == "flow_data[after_completion][redirect]")
            let readOnly = try #require(
                try await api.post("/v1/billing_portal/configurations", "features[payment_method_update][enabled]=false").json["id"]?.stringValue)
            #expect(
                try await api.post(
                    "/v1/billing_portal/sessions", "customer=\(customer)&configuration=\(readOnly)&flow_data[type]=payment_method_update"
                ).error?["param"] == "flow_data[type]")
            #expect(try await account.publishable.post("/v1/billing_portal/sessions", "customer=\(customer)").status == 403)
        }
    }

    @Test func thePageSetsTheDefaultAndRemovesAsTheCustomerAsks() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let visa = try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
            let mastercard = try #require(
                try await api.post("/v1/payment_methods/pm_card_mastercard/attach", "customer=\(customer)").json["id"]?.stringValue)
            _ = try await api.post("/v1/customers/\(customer)", "invoice_settings[default_payment_method]=\(visa)")
            let portal = try await PortalBrowser.open(api, customer: customer)

            let page = try await portal.get()
            #expect(page.status == 200)
            #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            #expect(page.text.contains("data-payment-method=\"\(visa)\"") && page.text.contains("data-payment-method=\"\(mastercard)\""))
            // The default cannot go while another method remains.
            #expect(!page.text.contains("\(visa)/remove"))
            #expect(try await portal.post("/payment_methods/\(visa)/remove").status == 400)

            let changed = try await portal.post("/payment_methods/\(mastercard)/default")
            #expect(changed.status == 200 && changed.text.contains("id=\"notice\""))
            #expect(try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]?.stringValue == mastercard)
            #expect(try await portal.post("/payment_methods/\(visa)/remove").status == 200)
            #expect(try await api.get("/v1/payment_methods/\(visa)").json["customer"] == .null)
            let events = try await api.get("/v1/events", query: "type=payment_method.detached")
            #expect(events.json["data"]?[0]?["data"]?["object"]?["id"]?.stringValue == visa)
        }
    }

    @Test func aFormFromElsewhereOrWithoutItsTokenChangesNothing() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let other = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let card = try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
            let othersCard = try #require(
                try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(other)").json["id"]?.stringValue)
            let portal = try await PortalBrowser.open(api, customer: customer)
            _ = try await portal.get()

            #expect(try await portal.post("/payment_methods/\(card)/remove", token: .none).status == 403)
            #expect(try await portal.post("/payment_methods/\(card)/remove", token: .given("wrong")).status == 403)
            // A body that is not a form has no token either, and gets a page, not an API error.
            let garbled = try await portal.post("/payment_methods/\(card)/remove", "%5B0%5D%5Bx=1&=2")
            #expect(garbled.status == 403 && garbled.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(try await portal.post("/payment_methods/\(card)/remove", headers: ["Sec-Fetch-Site": "cross-site"]).status == 403)
            #expect(try await portal.post("/payment_methods/\(card)/remove", headers: ["Origin": "https://evil.example"]).status == 403)
            // A browser without Sec-Fetch-Site sends `Origin: null` for the pages' own forms (no-referrer).
            #expect(try await portal.post("/payment_methods/\(card)/default", headers: ["Origin": "null"]).status == 200)
            // Another customer's method is not there, whatever the URL says.
            #expect(try await portal.post("/payment_methods/\(othersCard)/remove").status == 404)
            #expect(try await portal.post("/payment_methods/\(othersCard)/default").status == 404)
            #expect(try await api.get("/v1/payment_methods/\(card)").json["customer"]?.stringValue == customer)
            #expect(try await api.get("/v1/payment_methods/\(othersCard)").json["customer"]?.stringValue == other)
            // A session's token opens only that session.
            let second = try await PortalBrowser.open(api, customer: other)
            let swapped = URL(string: portal.url.absoluteString.replacingOccurrences(of: portal.id, with: second.id))!
            #expect(try await HTTPCall.send("GET", swapped).status == 404)
        }
    }

    @Test func aLinkClosesWhenUnvisitedIdleRevokedOrItsCustomerIsDeleted() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)

            let unvisited = try await PortalBrowser.open(api, customer: customer)
            _ = try await server.pool.query("UPDATE billing_portal_sessions SET created = created - 301 WHERE id = \(unvisited.id)")
            #expect(try await unvisited.get().status == 404)

            let idle = try await PortalBrowser.open(api, customer: customer)
            #expect(try await idle.get().status == 200)
            _ = try await server.pool.query("UPDATE billing_portal_sessions SET created = created - 3000 WHERE id = \(idle.id)")
            #expect(try await idle.get().status == 200)  // visited: the first-visit window no longer applies
            _ = try await server.pool.query("UPDATE billing_portal_sessions SET last_active = last_active - 3601 WHERE id = \(idle.id)")
            #expect(try await idle.get().status == 404)

            let revoked = try await PortalBrowser.open(api, customer: customer)
            #expect(try await revoked.get().status == 200)
            let revocation = try await api.post("/v1/customers/\(customer)/revoke_credentials")
            #expect(revocation.json["billing_portal_sessions_revoked"]?.intValue == 1)
            #expect(try await revoked.get().status == 404)

            let deleted = try await PortalBrowser.open(api, customer: customer)
            _ = try await api.delete("/v1/customers/\(customer)")
            #expect(try await deleted.get().status == 404)
        }
    }

    @Test func aFlowSavesTheNewMethodAsTheDefaultThenFollowsItsCompletion() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let landing = "\(server.baseURL.absoluteString)/healthz"
            let portal = try await PortalBrowser.open(
                api, customer: customer,
                extra: "&flow_data[type]=payment_method_update&flow_data[after_completion][type]=redirect"
                    + "&flow_data[after_completion][redirect][return_url]=\(landing)"
            )
            let form = try await portal.get()
            #expect(form.text.contains("id=\"add-form\"") && !form.text.contains("make_default"))

            let declined = try await portal.post(
                "/payment_methods", "type=card&card_number=4000%200000%200000%200002&card_expiry=12%20%2F%2034&card_cvc=123"
            )
            #expect(declined.status == 402)
            #expect(declined.text.contains("role=\"alert\""))
            #expect(!declined.text.contains("4000 0000 0000 0002") && !declined.text.contains("0002\"") && !declined.text.contains("value=\"123\""))
            #expect(try await api.get("/v1/payment_methods", query: "customer=\(customer)&type=card").json["data"]?.arrayValue?.isEmpty == true)

            let badExpiry = try await portal.post("/payment_methods", "type=card&card_number=4242424242424242&card_expiry=13&card_cvc=123")
            #expect(badExpiry.status == 400 && badExpiry.text.contains("card_expiry-error"))

            let saved = try await portal.post("/payment_methods", "type=card&card_number=4242424242424242&card_expiry=12%2F34&card_cvc=123")
            #expect(saved.status == 200, "\(saved.text)")
            #expect(saved.url?.absoluteString == landing)
            let methods = try #require(try await api.get("/v1/payment_methods", query: "customer=\(customer)&type=card").json["data"]?.arrayValue)
            #expect(methods.count == 1)
            #expect(
                try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"] == methods.first?["id"])
            // Done: the URL now opens the payment-methods page.
            #expect(try await portal.get().text.contains("id=\"payment-methods\""))
        }
    }

    @Test func threeDSecureGoesThroughTheAuthenticationPageAndBack() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let portal = try await PortalBrowser.open(api, customer: customer)
            _ = try await portal.get()
            let challenge = try await portal.post(
                "/payment_methods", "type=card&card_number=4000002500003155&card_expiry=12%2F34&card_cvc=123&make_default=true"
            )
            #expect(challenge.status == 200)
            let authentication = try #require(challenge.url)
            #expect(authentication.path.contains("/authenticate/"))
            // The page sends the browser back to a URL without the session's token (the intent
            // stores it); only the browser holding the cookie set on its way out gets in. This
            // client keeps no cookies, so it first comes back as a stranger would.
            let back = try await HTTPCall.send("POST", authentication, body: "action=complete")
            #expect(back.status == 404)
            let returnURL = try #require(back.url)
            #expect(returnURL.path.hasPrefix("/p/session/\(portal.id)/return/") && !returnURL.absoluteString.contains("test_"))
            let intent = String(authentication.pathComponents[3])
            let cookie = DerivedSecrets(masterKey: server.masterKey).portalReturnToken(
                session: portal.id, setupIntent: intent, makeDefault: true
            )
            let returned = try await HTTPCall.send("GET", returnURL, headers: ["Cookie": "other=1; purse_portal_return=\(cookie)"])
            #expect(returned.status == 200 && returned.text.contains("id=\"notice\""))
            let methods = try #require(try await api.get("/v1/payment_methods", query: "customer=\(customer)&type=card").json["data"]?.arrayValue)
            #expect(methods.count == 1)
            #expect(
                try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"] == methods.first?["id"])
        }
    }
}

/// A customer's browser on a portal session: the session's URL, and its form token read from the
/// page as a browser would submit it.
struct PortalBrowser {
    let id: String
    let url: URL

    static func open(_ api: APIClient, customer: String, extra: String = "") async throws -> PortalBrowser {
        let session = try await api.post("/v1/billing_portal/sessions", "customer=\(customer)\(extra)")
        let id = try #require(session.json["id"]?.stringValue)
        let url = try #require(session.json["url"]?.stringValue.flatMap(URL.init(string:)))
        return PortalBrowser(id: id, url: url)
    }

    func get(_ path: String = "") async throws -> HTTPCall {
        try await HTTPCall.send("GET", URL(string: url.absoluteString + path)!)
    }

    /// The form token a POST carries.
    enum FormToken {
        /// The session's, as its pages give it.
        case session
        case given(String)
        case none
    }

    /// POSTs a form as the page's own would: from the page's origin, unless `headers` say where
    /// from instead.
    func post(
        _ path: String, _ form: String = "", token: FormToken = .session, headers: [String: String] = ["Sec-Fetch-Site": "same-origin"]
    ) async throws -> HTTPCall {
        var fields = form.isEmpty ? [] : [form]
        switch token {
        case .session: fields.append("csrf_token=\(try await formToken())")
        case .given(let given): fields.append("csrf_token=\(given)")
        case .none: break
        }
        return try await HTTPCall.send(
            "POST", URL(string: url.absoluteString + path)!, headers: headers,
            body: fields.joined(separator: "&")
        )
    }

    private func formToken() async throws -> String {
        let page = try await get("/add")
        let marker = "name=\"csrf_token\" value=\""
        guard let start = page.text.range(of: marker) else { return "" }
        return String(page.text[start.upperBound...].prefix { $0 != "\"" })
    }
}
