import Foundation
import PurseModels
import TestSupport
import Testing

@testable import PurseServer

/// Financial Connections as the mobile sheets use it: a session for a setup intent (stripe-ios)
/// or for an intent not created yet (stripe-android), the test-bank page, the session receipt,
/// and the `us_bank_account` payment method made from the linked account.
@Suite("Financial Connections")
struct FinancialConnectionsTests {
    /// A customer's setup intent that may save bank accounts, and its client secret.
    private static func bankIntent(_ account: TestAccount) async throws -> (customer: String, id: String, secret: String) {
        let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
        let intent = try await account.secret.post(
            "/v1/setup_intents", "customer=\(customer)&payment_method_types[0]=card&payment_method_types[1]=us_bank_account"
        )
        return (customer, try #require(intent.json["id"]?.stringValue), try #require(intent.json["client_secret"]?.stringValue))
    }

    /// stripe-ios's `createLinkAccountSession(setupIntentID:...)`, then its synchronize.
    private static func linkSession(
        _ account: TestAccount, intent: String, secret: String, app: String = "com.example.sheet"
    ) async throws -> (session: JSONValue, manifest: JSONValue) {
        let created = try await account.publishable.post(
            "/v1/setup_intents/\(intent)/link_account_sessions",
            "client_secret=\(secret)&payment_method_data[type]=us_bank_account&payment_method_data[billing_details][name]=Jenny%20Rosen"
                + "&payment_method_data[billing_details][email]=jenny%40example.com&hosted_surface=customer_sheet&link_mode=LINK_DISABLED"
        )
        #expect(created.status == 200, "\(created.json)")
        let clientSecret = try #require(created.json["client_secret"]?.stringValue)
        let synchronized = try await account.publishable.post(
            "/v1/financial_connections/sessions/synchronize",
            "client_secret=\(clientSecret)&expand[0]=manifest.active_auth_session&locale=en-US&mobile[fullscreen]=true"
                + "&mobile[hide_close_button]=true&mobile[forced_authflow_version]=v3&mobile[verified_app_id]=\(app)",
            headers: ["Stripe-Version": "2020-08-27; financial_connections_client_api_beta=v1"]
        )
        #expect(synchronized.status == 200, "\(synchronized.json)")
        return (created.json, synchronized.json["manifest"] ?? .null)
    }

    /// The page's form, posted as the app's browser posts it; the status, the link back to the
    /// app the answer ends on (the only one, which the customer taps), and the body.
    private static func submit(
        _ server: LiveServer, page url: String, _ form: String
    ) async throws -> (status: Int, returnLink: String?, body: String) {
        let path = String(url.dropFirst("http://127.0.0.1:\(server.port)".count)) + "&launched_by=ios_sdk"
        let connection = try await RawHTTPConnection.open(port: server.port)
        try await connection.write(
            "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
        )
        let response = try await connection.response()
        #expect(response.headers["location"] == nil, "no redirect: a Custom Tab opens an app's scheme only from a tap")
        return (response.status, Self.returnLink(in: response.body), response.body)
    }

    /// The href of the page's `Return to the app` link, unescaped.
    private static func returnLink(in html: String) -> String? {
        guard let start = html.range(of: "id=\"return\" class=\"button primary\" href=\""),
            let end = html[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        #expect(html.components(separatedBy: "stripe-auth://").count == 2, "one way back to the app")
        return String(html[start.upperBound..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func aSheetLinksAnAccountAndSavesIt() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let (customer, intent, secret) = try await Self.bankIntent(account)
            #expect(
                try await account.secret.get("/v1/setup_intents/\(intent)").json["payment_method_options"]?["us_bank_account"]?[
                    "verification_method"] == "automatic")
            let (session, manifest) = try await Self.linkSession(account, intent: intent, secret: secret)
            let sessionID = try #require(session["id"]?.stringValue)
            #expect(sessionID.hasPrefix("fcsess_"))
            #expect(session["status"] == "pending")
            #expect(session["account_holder"]?["customer"]?.stringValue == customer)
            #expect(manifest["id"]?.stringValue == sessionID)
            #expect(manifest["success_url"] == "stripe-auth://link-accounts/com.example.sheet/success")
            #expect(manifest["cancel_url"] == "stripe-auth://link-accounts/com.example.sheet/cancel")
            #expect(manifest["features"] == nil, "no features: both SDKs take the web flow")
            let pageURL = try #require(manifest["hosted_auth_url"]?.stringValue)
            #expect(pageURL.contains("?"), "the SDKs append their parameters with &")

            let page = try await HTTPCall.send("GET", URL(string: pageURL + "&launched_by=ios_sdk&email=jenny%40example.com")!)
            #expect(page.status == 200)
            #expect(page.header("Content-Security-Policy")?.contains("form-action 'self';") == true)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("id=\"account-checking\"") && !html.contains("<script"))

            let linked = try await Self.submit(server, page: pageURL, "account=checking&action=link")
            #expect(linked.status == 200)
            #expect(linked.returnLink == "stripe-auth://link-accounts/com.example.sheet/success")

            let clientSecret = try #require(session["client_secret"]?.stringValue)
            let receipt = try await account.publishable.get("/v1/link_account_sessions/session_receipt", query: "client_secret=\(clientSecret)")
            #expect(receipt.json["status"] == "succeeded")
            #expect(receipt.json["accounts"]?["has_more"] == false)
            let linkedAccount = try #require(receipt.json["payment_account"]?["id"]?.stringValue)
            #expect(receipt.json["payment_account"]?["last4"] == "6789")
            #expect(receipt.json["payment_account"]?["object"] == "financial_connections.account")
            #expect(receipt.json["accounts"]?["data"]?[0]?["id"]?.stringValue == linkedAccount)

            // stripe-ios's confirmation: the linked account inline, the mandate inferred.
            let confirmed = try await account.publishable.post(
                "/v1/setup_intents/\(intent)/confirm",
                "client_secret=\(secret)&payment_method_data[type]=us_bank_account"
                    + "&payment_method_data[us_bank_account][link_account_session]=\(sessionID)"
                    + "&payment_method_data[billing_details][name]=Jenny%20Rosen&payment_method_data[billing_details][email]=jenny%40example.com"
                    + "&mandate_data[customer_acceptance][type]=online&mandate_data[customer_acceptance][online][infer_from_client]=true"
                    + "&use_stripe_sdk=true&expand[0]=payment_method"
            )
            #expect(confirmed.status == 200, "\(confirmed.json)")
            #expect(confirmed.json["status"] == "succeeded")
            let bank = confirmed.json["payment_method"]?["us_bank_account"]
            #expect(bank?["financial_connections_account"]?.stringValue == linkedAccount)
            #expect(bank?["last4"] == "6789")
            #expect(bank?["routing_number"] == "110000000")
            #expect(bank?["account_type"] == "checking")
            #expect(bank?["bank_name"] == "STRIPE TEST BANK")
            let saved = try await account.secret.get("/v1/customers/\(customer)/payment_methods", query: "type=us_bank_account")
            #expect(saved.json["data"]?.arrayValue?.count == 1)

            // The secret key reads both objects.
            #expect(try await account.secret.get("/v1/financial_connections/sessions/\(sessionID)").json["status"] == "succeeded")
            #expect(try await account.secret.get("/v1/financial_connections/accounts/\(linkedAccount)").json["subcategory"] == "checking")
            #expect(try await account.publishable.get("/v1/financial_connections/accounts/\(linkedAccount)").status == 403)
            // The page of a finished session changes nothing.
            let again = try await Self.submit(server, page: pageURL, "account=savings&action=link")
            #expect(again.status == 200 && again.body.contains("Account linked"))
            #expect(again.returnLink == "stripe-auth://link-accounts/com.example.sheet/success", "a reload ends on the same link")
        }
    }

    @Test func androidsDeferredSessionBecomesAPaymentMethod() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let refused = try await account.publishable.post(
                "/v1/connections/link_account_sessions_for_deferred_payment", "verification_method=automatic")
            #expect(refused.error?["param"] == "unique_id")
            let microdeposits = try await account.publishable.post(
                "/v1/connections/link_account_sessions_for_deferred_payment", "unique_id=elements_session_1&verification_method=microdeposits")
            #expect(microdeposits.error?["param"] == "verification_method")

            let created = try await account.publishable.post(
                "/v1/connections/link_account_sessions_for_deferred_payment",
                "unique_id=elements_session_1&verification_method=automatic&hosted_surface=customer_sheet&link_mode=LINK_DISABLED&product=x"
            )
            #expect(created.status == 200, "any other parameter is ignored: \(created.json)")
            #expect(created.json["account_holder"] == .null)
            let sessionID = try #require(created.json["id"]?.stringValue)
            let clientSecret = try #require(created.json["client_secret"]?.stringValue)

            // Before the customer linked anything, no payment method can be made from it.
            let early = try await account.publishable.post(
                "/v1/payment_methods", "type=us_bank_account&us_bank_account[link_account_session]=\(sessionID)&billing_details[name]=J")
            #expect(early.status == 400)
            #expect(early.error?["param"] == "us_bank_account[link_account_session]")

            let synchronized = try await account.publishable.post(
                "/v1/financial_connections/sessions/synchronize",
                "client_secret=\(clientSecret)&expand[]=manifest.active_auth_session&mobile[application_id]=com.example.android",
                headers: ["Stripe-Version": "2020-03-02;financial_connections_client_api_beta=v1"]
            )
            let manifest = synchronized.json["manifest"]
            #expect(manifest?["success_url"] == "stripe-auth://link-accounts/com.example.android/success")
            let pageURL = try #require(manifest?["hosted_auth_url"]?.stringValue)

            // Typed numbers that do not check out: the form again, and nothing linked.
            let bad = try await Self.submit(
                server, page: pageURL, "account=manual&routing_number=123456789&account_number=000123456789&account_type=savings&action=link")
            #expect(bad.status == 400)
            #expect(bad.body.contains("routing number") && !bad.body.contains("000123456789"))
            #expect(
                try await account.publishable.get("/v1/link_account_sessions/session_receipt", query: "client_secret=\(clientSecret)")
                    .json["status"] == "pending")

            let linked = try await Self.submit(
                server, page: pageURL, "account=manual&routing_number=110000000&account_number=000123456789&account_type=savings&action=link")
            #expect(linked.returnLink == "stripe-auth://link-accounts/com.example.android/success")

            let method = try await account.publishable.post(
                "/v1/payment_methods",
                "type=us_bank_account&us_bank_account[link_account_session]=\(sessionID)&billing_details[name]=Jenny%20Rosen&allow_redisplay=always"
            )
            #expect(method.status == 200, "\(method.json)")
            #expect(method.json["us_bank_account"]?["account_type"] == "savings")
            #expect(method.json["us_bank_account"]?["financial_connections_account"]?.stringValue?.hasPrefix("fca_") == true)
            #expect(method.json["us_bank_account"]?["networks"]?["supported"] == ["ach"])

            // Numbers together with a linked account are refused.
            let both = try await account.publishable.post(
                "/v1/payment_methods",
                "type=us_bank_account&us_bank_account[link_account_session]=\(sessionID)&us_bank_account[routing_number]=110000000"
                    + "&billing_details[name]=J"
            )
            #expect(both.error?["param"] == "us_bank_account")
        }
    }

    @Test func aCancelledLinkAndAClosedAccount() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let (_, intent, secret) = try await Self.bankIntent(account)

            let (cancelled, cancelledManifest) = try await Self.linkSession(account, intent: intent, secret: secret)
            let cancelledPage = try #require(cancelledManifest["hosted_auth_url"]?.stringValue)
            let left = try await Self.submit(server, page: cancelledPage, "account=checking&action=cancel")
            #expect(left.returnLink == "stripe-auth://link-accounts/com.example.sheet/cancel")
            let receipt = try await account.publishable.get(
                "/v1/link_account_sessions/session_receipt", query: "client_secret=\(cancelled["client_secret"]?.stringValue ?? "")")
            #expect(receipt.json["status"] == "cancelled")
            #expect(receipt.json["status_details"]?["cancelled"]?["reason"] == "other")
            #expect(receipt.json["payment_account"] == nil, "left out until linked: stripe-ios reads null as an unknown account")

            // The closed test account links; saving it is the bank's refusal, kept on the intent.
            let (session, manifest) = try await Self.linkSession(account, intent: intent, secret: secret)
            _ = try await Self.submit(server, page: try #require(manifest["hosted_auth_url"]?.stringValue), "account=closed&action=link")
            let sessionID = try #require(session["id"]?.stringValue)
            let confirm = { (session: String) in
                try await account.publishable.post(
                    "/v1/setup_intents/\(intent)/confirm",
                    "client_secret=\(secret)&payment_method_data[type]=us_bank_account"
                        + "&payment_method_data[us_bank_account][link_account_session]=\(session)"
                        + "&payment_method_data[billing_details][name]=J&mandate_data[customer_acceptance][type]=online"
                        + "&mandate_data[customer_acceptance][online][infer_from_client]=true"
                )
            }
            let declined = try await confirm(sessionID)
            #expect(declined.status == 400 || declined.status == 402, "\(declined.json)")
            let after = try await account.secret.get("/v1/setup_intents/\(intent)")
            #expect(after.json["status"] == "requires_payment_method")
            #expect(after.json["last_setup_error"]?["payment_method"]?["us_bank_account"]?["last4"] == "1113")

            // A session made for another intent is not this one's.
            let (_, otherIntent, otherSecret) = try await Self.bankIntent(account)
            let (other, otherManifest) = try await Self.linkSession(account, intent: otherIntent, secret: otherSecret)
            _ = try await Self.submit(server, page: try #require(otherManifest["hosted_auth_url"]?.stringValue), "account=checking&action=link")
            let foreign = try await confirm(try #require(other["id"]?.stringValue))
            #expect(foreign.error?["param"] == "payment_method_data[us_bank_account][link_account_session]")
        }
    }

    @Test func thePagesTokenIsNeverLogged() {
        #expect(ResponseMiddleware.loggable("/v1/financial_connections/test_bank/abc123") == "/v1/financial_connections/test_bank/****")
        #expect(ResponseMiddleware.loggable("/v1/setup_intents/seti_1/authenticate/abc") == "/v1/setup_intents/seti_1/authenticate/****")
        #expect(ResponseMiddleware.loggable("/v1/customers/cus_1") == "/v1/customers/cus_1")
    }

    @Test func whatIsRefused() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let (_, intent, secret) = try await Self.bankIntent(account)
            let cardOnly = try await account.secret.post("/v1/setup_intents", "payment_method_types[0]=card")
            let cardIntent = try #require(cardOnly.json["id"]?.stringValue)
            let cardSecret = try #require(cardOnly.json["client_secret"]?.stringValue)

            let notBank = try await account.publishable.post(
                "/v1/setup_intents/\(cardIntent)/link_account_sessions", "client_secret=\(cardSecret)&payment_method_data[type]=us_bank_account")
            #expect(notBank.error?["param"] == "payment_method_data[type]")
            let wrongSecret = try await account.publishable.post(
                "/v1/setup_intents/\(intent)/link_account_sessions", "client_secret=\(cardSecret)&payment_method_data[type]=us_bank_account")
            #expect(wrongSecret.error?["param"] == "client_secret")
            for (path, form) in [
                ("/v1/financial_connections/sessions/synchronize", "client_secret=fcsess_x_secret_y"),
                ("/v1/link_account_sessions/complete", "client_secret=nope"),
            ] {
                let refused = try await account.publishable.post(path, form)
                #expect(refused.status == 400)
                #expect(refused.error?["param"] == "client_secret")
            }
            let badApp = try await account.publishable.post(
                "/v1/financial_connections/sessions/synchronize",
                "client_secret=\(try await Self.linkSession(account, intent: intent, secret: secret).session["client_secret"]?.stringValue ?? "")"
                    + "&mobile[application_id]=evil%2F..%2Fpath"
            )
            #expect(badApp.error?["param"] == "mobile[application_id]")
            // The secret key stays strict on these endpoints too.
            let strict = try await account.secret.post(
                "/v1/connections/link_account_sessions_for_deferred_payment", "unique_id=e&surprise=1")
            #expect(strict.error?["param"] == "surprise")
            // Another account's session is unknown, by id and by client secret.
            let other = try await server.makeAccount(name: "Other")
            let (session, _) = try await Self.linkSession(account, intent: intent, secret: secret)
            #expect(try await other.secret.get("/v1/financial_connections/sessions/\(session["id"]?.stringValue ?? "")").status == 404)
            #expect(
                try await other.publishable.get(
                    "/v1/link_account_sessions/session_receipt", query: "client_secret=\(session["client_secret"]?.stringValue ?? "")"
                ).status == 400)
            // A page with a wrong token shows nothing.
            let page = try await HTTPCall.send(
                "GET",
                URL(string: "http://127.0.0.1:\(server.port)/v1/financial_connections/test_bank/x?session=\(session["id"]?.stringValue ?? "")")!)
            #expect(page.status == 404)
        }
    }
}
