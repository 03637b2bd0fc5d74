import Foundation
import PurseModels
import TestSupport
import Testing

/// Confirmation forms as stripe-ios sends them with the publishable key.
func confirmForm(clientSecret: String, number: String, extra: String = "") -> String {
    "client_secret=\(clientSecret)&payment_method_data[type]=card&payment_method_data[card][number]=\(number)"
        + "&payment_method_data[card][exp_month]=12&payment_method_data[card][exp_year]=2035&payment_method_data[card][cvc]=012"
        + "&payment_method_data[payment_user_agent]=stripe-ios%2F24.0&use_stripe_sdk=true&expand[0]=payment_method" + extra
}

@Suite("Setup intents")
struct SetupIntentTests {
    @Test func createConfirmAndSucceed() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let created = try await api.post("/v1/setup_intents", "customer=\(customer)&metadata[order]=7")
            #expect(created.status == 200)
            #expect(created.json["status"] == "requires_payment_method")
            #expect(created.json["usage"] == "off_session")
            #expect(created.json["payment_method_types"] == ["card"])
            let id = try #require(created.json["id"]?.stringValue)
            let secret = try #require(created.json["client_secret"]?.stringValue)
            #expect(secret.hasPrefix("\(id)_secret_"))
            #expect(secret.split(separator: "_").count == 4, "no _ inside the id or the random part")

            let confirmed = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm", confirmForm(clientSecret: secret, number: "4242424242424242"))
            #expect(confirmed.status == 200, "\(confirmed.json)")
            #expect(confirmed.json["status"] == "succeeded")
            #expect(confirmed.json["payment_method"]?["card"]?["last4"] == "4242", "expand[0]=payment_method")
            #expect(confirmed.json["customer"] == nil, "the publishable key sees only Stripe's subset")
            #expect(confirmed.json["metadata"] == nil)
            let methodID = try #require(confirmed.json["payment_method"]?["id"]?.stringValue)
            #expect(try await api.get("/v1/payment_methods/\(methodID)").json["customer"]?.stringValue == customer)
            let full = try await api.get("/v1/setup_intents/\(id)")
            #expect(full.json["customer"]?.stringValue == customer)
            #expect(full.json["metadata"] == ["order": "7"])

            let types = try await api.get("/v1/events").json["data"]?.arrayValue?.map { $0["type"]?.stringValue ?? "" }
            #expect(types?.contains("setup_intent.created") == true)
            #expect(types?.contains("setup_intent.succeeded") == true)
            #expect(types?.contains("payment_method.attached") == true)
            let event = try await api.get("/v1/events", query: "type=setup_intent.succeeded").json["data"]?[0]
            #expect(event?["data"]?["object"]?["client_secret"]?.stringValue == secret, "derived again when shown")
            let stored = try await server.pool.query("SELECT data::text AS d FROM events WHERE type = 'setup_intent.succeeded'")
            #expect(!(try stored[0]["d", as: String.self]).contains(secret), "never stored in clear")

            // A succeeded intent is final.
            let again = try await api.post("/v1/setup_intents/\(id)/confirm", "payment_method=pm_card_visa")
            #expect(again.status == 400)
            #expect(again.error?["code"] == "setup_intent_unexpected_state")
            #expect(try await api.post("/v1/setup_intents/\(id)/cancel").error?["code"] == "setup_intent_unexpected_state")
        }
    }

    @Test func thePublishableKeyNeedsTheRightClientSecret() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let first = try await account.secret.post("/v1/setup_intents")
            let second = try await account.secret.post("/v1/setup_intents")
            let id = try #require(first.json["id"]?.stringValue)
            let otherSecret = try #require(second.json["client_secret"]?.stringValue)
            let ownSecret = try #require(first.json["client_secret"]?.stringValue)
            #expect(try await account.publishable.get("/v1/setup_intents/\(id)").status == 400)
            let wrong = try await account.publishable.get("/v1/setup_intents/\(id)", query: "client_secret=\(otherSecret)")
            #expect(wrong.status == 400)
            #expect(wrong.error?["param"] == "client_secret")
            let right = try await account.publishable.get("/v1/setup_intents/\(id)", query: "client_secret=\(ownSecret)")
            #expect(right.status == 200)
            #expect(Set(right.json.objectValue?.keys ?? []) == SetupIntent.publishableFields)
            let confirm = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm", confirmForm(clientSecret: otherSecret, number: "4242424242424242"))
            #expect(confirm.status == 400)
            #expect(try await account.secret.get("/v1/setup_intents/\(id)").json["status"] == "requires_payment_method")
            let other = try await server.makeAccount()
            #expect(try await other.publishable.get("/v1/setup_intents/\(id)", query: "client_secret=\(ownSecret)").status == 404)
        }
    }

    @Test func aDeclineKeepsItsFailureOnTheIntent() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let intent = try await account.secret.post("/v1/setup_intents", "customer=\(customer)")
            let id = try #require(intent.json["id"]?.stringValue)
            let secret = try #require(intent.json["client_secret"]?.stringValue)
            let headers = ["Idempotency-Key": "decline-1"]
            let declined = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm", confirmForm(clientSecret: secret, number: "4000000000009995"), headers: headers
            )
            #expect(declined.status == 402)
            #expect(declined.error?["type"] == "card_error")
            #expect(declined.error?["decline_code"] == "insufficient_funds")
            #expect(declined.error?["setup_intent"]?["status"] == "requires_payment_method")
            #expect(declined.error?["setup_intent"]?["last_setup_error"]?["decline_code"] == "insufficient_funds")
            // The failure is kept (it changed the intent), so a retry with the same key replays it.
            let replay = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm", confirmForm(clientSecret: secret, number: "4000000000009995"), headers: headers
            )
            #expect(replay.status == 402)
            #expect(replay.header("Idempotent-Replayed") == "true")
            let after = try await account.secret.get("/v1/setup_intents/\(id)")
            #expect(after.json["status"] == "requires_payment_method")
            #expect(after.json["payment_method"] == .null)
            #expect(after.json["last_setup_error"]?["payment_method"]?["card"]?["last4"] == "9995")
            #expect(try await account.secret.get("/v1/customers/\(customer)/payment_methods").json["data"] == [])
            #expect(try await account.secret.get("/v1/events", query: "type=setup_intent.setup_failed").json["data"]?.arrayValue?.count == 1)
            // A good card afterwards succeeds and clears the error.
            let good = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm", confirmForm(clientSecret: secret, number: "4242424242424242"))
            #expect(good.json["status"] == "succeeded")
            #expect(good.json["last_setup_error"] == .null)
        }
    }

    @Test func invalidCardDetailsChangeNothing() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let intent = try await account.secret.post("/v1/setup_intents")
            let id = try #require(intent.json["id"]?.stringValue)
            let call = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm",
                confirmForm(clientSecret: intent.json["client_secret"]?.stringValue ?? "", number: "4242424242424241")
            )
            #expect(call.status == 402)
            #expect(call.error?["code"] == "incorrect_number")
            #expect(call.error?["param"] == "payment_method_data[card][number]")
            #expect(try await account.secret.get("/v1/setup_intents/\(id)").json["last_setup_error"] == .null)
            #expect(try await account.secret.get("/v1/events", query: "type=setup_intent.setup_failed").json["data"] == [])
        }
    }

    @Test(arguments: [true, false])
    func threeDSecureThroughThePage(completes: Bool) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let intent = try await account.secret.post("/v1/setup_intents", "customer=\(customer)&return_url=myapp%3A%2F%2Fdone")
            let id = try #require(intent.json["id"]?.stringValue)
            let secret = try #require(intent.json["client_secret"]?.stringValue)
            let confirmed = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm", confirmForm(clientSecret: secret, number: "4000002500003155"))
            #expect(confirmed.json["status"] == "requires_action")
            #expect(confirmed.json["next_action"]?["type"] == "redirect_to_url")
            #expect(confirmed.json["next_action"]?["redirect_to_url"]?["return_url"] == "myapp://done")
            let pageURL = try #require(confirmed.json["next_action"]?["redirect_to_url"]?["url"]?.stringValue)
            #expect(pageURL.hasPrefix("http://127.0.0.1:\(server.port)/v1/setup_intents/\(id)/authenticate/"))

            // Showing the page changes nothing.
            let page = try await HTTPCall.send("GET", URL(string: pageURL)!)
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(String(decoding: page.body, as: UTF8.self).contains("•••• 3155"))
            #expect(try await account.secret.get("/v1/setup_intents/\(id)").json["status"] == "requires_action")
            #expect(try await HTTPCall.send("GET", URL(string: pageURL + "x")!).status == 404, "a wrong token shows nothing")

            let connection = try await RawHTTPConnection.open(port: server.port)
            let path = String(pageURL.dropFirst("http://127.0.0.1:\(server.port)".count))
            let form = "action=\(completes ? "complete" : "fail")"
            try await connection.write(
                "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
            )
            let decided = try await connection.response()
            #expect(decided.status == 303, "back to return_url")

            let after = try await account.secret.get("/v1/setup_intents/\(id)")
            let methods = try await account.secret.get("/v1/customers/\(customer)/payment_methods").json["data"]?.arrayValue ?? []
            if completes {
                #expect(after.json["status"] == "succeeded")
                #expect(methods.count == 1)
            } else {
                #expect(after.json["status"] == "requires_payment_method")
                #expect(after.json["last_setup_error"]?["code"] == "setup_intent_authentication_failure")
                #expect(methods.isEmpty)
            }
            #expect(after.json["next_action"] == .null)
            // The page is spent: showing it again tells the outcome and changes nothing.
            let spent = try await HTTPCall.send("GET", URL(string: pageURL)!)
            #expect(spent.status == 200)
            #expect(String(decoding: spent.body, as: UTF8.self).contains(completes ? "complete" : "failed"))
            #expect(try await account.secret.get("/v1/setup_intents/\(id)").json["status"] == after.json["status"])
        }
    }

    @Test func bankDebitsNeedAMandateAndMayBeUnusable() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let mandate =
                "&mandate_data[customer_acceptance][type]=online&mandate_data[customer_acceptance][online][ip_address]=127.0.0.1&mandate_data[customer_acceptance][online][user_agent]=curl"
            let bank =
                "payment_method_data[type]=us_bank_account&payment_method_data[us_bank_account][routing_number]=110000000&payment_method_data[us_bank_account][account_holder_type]=individual&payment_method_data[billing_details][name]=Jenny"
            let types = "customer=\(customer)&payment_method_types[]=us_bank_account&payment_method_types[]=sepa_debit"

            let good = try #require(try await api.post("/v1/setup_intents", types).json["id"]?.stringValue)
            let noMandate = try await api.post(
                "/v1/setup_intents/\(good)/confirm", bank + "&payment_method_data[us_bank_account][account_number]=000123456789")
            #expect(noMandate.status == 400)
            #expect(noMandate.error?["param"] == "mandate_data")
            let succeeded = try await api.post(
                "/v1/setup_intents/\(good)/confirm", bank + "&payment_method_data[us_bank_account][account_number]=000123456789" + mandate)
            #expect(succeeded.json["status"] == "succeeded", "\(succeeded.json)")
            #expect(succeeded.json["mandate"]?.stringValue?.hasPrefix("mandate_") == true)

            let closed = try #require(try await api.post("/v1/setup_intents", types).json["id"]?.stringValue)
            let refused = try await api.post(
                "/v1/setup_intents/\(closed)/confirm", bank + "&payment_method_data[us_bank_account][account_number]=000111111113" + mandate)
            #expect(refused.status == 400)
            #expect(refused.error?["code"] == "bank_account_unusable")
            #expect(try await api.get("/v1/setup_intents/\(closed)").json["status"] == "requires_payment_method")
            #expect(try await api.get("/v1/setup_intents/\(closed)").json["last_setup_error"]?["code"] == "bank_account_unusable")

            let sepa = try #require(try await api.post("/v1/setup_intents", types).json["id"]?.stringValue)
            let offline = "&mandate_data[customer_acceptance][type]=offline"
            let iban =
                "payment_method_data[type]=sepa_debit&payment_method_data[sepa_debit][iban]=DE89370400440532013000&payment_method_data[billing_details][name]=J&payment_method_data[billing_details][email]=j%40x.io"
            #expect(try await api.post("/v1/setup_intents/\(sepa)/confirm", iban + offline).json["status"] == "succeeded")
            let failing = try #require(try await api.post("/v1/setup_intents", types).json["id"]?.stringValue)
            let failingIBAN = iban.replacingOccurrences(of: "DE89370400440532013000", with: "DE62370400440532013001")
            #expect(try await api.post("/v1/setup_intents/\(failing)/confirm", failingIBAN + offline).error?["code"] == "bank_account_unusable")

            // A card is not allowed on an intent for bank debits only.
            let cardOnBank = try await api.post("/v1/setup_intents/\(good)/confirm", "payment_method=pm_card_visa")
            #expect(cardOnBank.status == 400)
        }
    }

    @Test func cancelUpdateAndList() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let withMethod = try await api.post("/v1/setup_intents", "customer=\(customer)&payment_method=pm_card_visa&description=One")
            #expect(withMethod.json["status"] == "requires_confirmation")
            let id = try #require(withMethod.json["id"]?.stringValue)
            let updated = try await api.post("/v1/setup_intents/\(id)", "payment_method=&description=Two&metadata[k]=v")
            #expect(updated.json["status"] == "requires_payment_method")
            #expect(updated.json["description"] == "Two")
            let canceled = try await api.post("/v1/setup_intents/\(id)/cancel", "cancellation_reason=requested_by_customer")
            #expect(canceled.json["status"] == "canceled")
            #expect(canceled.json["cancellation_reason"] == "requested_by_customer")
            #expect(try await api.post("/v1/setup_intents/\(id)", "description=Three").error?["code"] == "setup_intent_unexpected_state")
            #expect(try await api.post("/v1/setup_intents/\(id)/cancel").status == 400)
            #expect(try await api.post("/v1/setup_intents/\(id)/confirm", "payment_method=pm_card_visa").status == 400)
            #expect(try await api.post("/v1/setup_intents", "payment_method_types[]=paypal").status == 400)
            #expect(try await api.post("/v1/setup_intents", "usage=sometimes").status == 400)
            #expect(try await api.post("/v1/setup_intents", "mandate_data[customer_acceptance][type]=offline").status == 400)
            #expect(try await api.post("/v1/setup_intents", "customer=cus_nothing").status == 400)

            let confirmedAtOnce = try await api.post("/v1/setup_intents", "customer=\(customer)&payment_method=pm_card_mastercard&confirm=true")
            #expect(confirmedAtOnce.json["status"] == "succeeded")
            let list = try await api.get("/v1/setup_intents", query: "customer=\(customer)")
            #expect(list.json["data"]?.arrayValue?.count == 2)
            let expanded = try await api.get(
                "/v1/setup_intents/\(confirmedAtOnce.json["id"]?.stringValue ?? "")", query: "expand[]=customer&expand[]=payment_method")
            #expect(expanded.json["customer"]?["id"]?.stringValue == customer)
            #expect(expanded.json["payment_method"]?["card"]?["brand"] == "mastercard")
        }
    }

    @Test func abandonedIntentsAreSweptAsCanceled() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let old = try #require(try await api.post("/v1/setup_intents").json["id"]?.stringValue)
            let fresh = try #require(try await api.post("/v1/setup_intents").json["id"]?.stringValue)
            try await server.pool.query("UPDATE setup_intents SET updated_at = now() - interval '25 hours' WHERE id = \(old)")
            let swept = try await server.sweep()
            #expect(swept.abandonedSetupIntents == 1)
            #expect(try await api.get("/v1/setup_intents/\(old)").json["cancellation_reason"] == "abandoned")
            #expect(try await api.get("/v1/setup_intents/\(fresh)").json["status"] == "requires_payment_method")
        }
    }

    @Test func elementsSessionsForAnIntentAndDeferred() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let intent = try await account.secret.post(
                "/v1/setup_intents", "payment_method_types[]=card&payment_method_types[]=sepa_debit&payment_method=pm_card_visa")
            let secret = try #require(intent.json["client_secret"]?.stringValue)
            let session = try await account.publishable.get(
                "/v1/elements/sessions",
                query:
                    "type=setup_intent&client_secret=\(secret)&expand[0]=payment_method_preference.setup_intent.payment_method&locale=en-US&mobile_app_id=com.example"
            )
            #expect(session.status == 200, "\(session.json)")
            #expect(session.json["session_id"]?.stringValue?.isEmpty == false)
            let preference = session.json["payment_method_preference"]
            #expect(preference?["ordered_payment_method_types"] == ["card", "sepa_debit"])
            #expect(preference?["setup_intent"]?["id"] == intent.json["id"])
            #expect(preference?["setup_intent"]?["payment_method"]?["card"]?["last4"] == "4242")
            #expect(preference?["setup_intent"]?["customer"] == nil, "the publishable subset")

            let deferred = try await account.publishable.get(
                "/v1/elements/sessions",
                query:
                    "type=deferred_intent&deferred_intent[mode]=setup&deferred_intent[payment_method_types][0]=card&deferred_intent[payment_method_types][1]=us_bank_account&deferred_intent[payment_method_types][2]=cashapp&external_payment_methods[0]=external_paypal&client_default_payment_method=pm_x"
            )
            // us_bank_account is added through Financial Connections; cashapp Purse does not save.
            #expect(deferred.json["payment_method_preference"]?["ordered_payment_method_types"] == ["card", "us_bank_account"])
            #expect(deferred.json["unactivated_payment_method_types"] == ["cashapp"])
            #expect(try await account.publishable.get("/v1/elements/sessions", query: "type=deferred_intent").status == 400)
            #expect(try await account.publishable.get("/v1/elements/sessions", query: "type=setup_intent&client_secret=nope").status == 400)
            // A private SDK endpoint: parameters of SDK releases to come are ignored (spec §3).
            #expect(
                try await account.publishable.get("/v1/elements/sessions", query: "type=deferred_intent&deferred_intent[mode]=setup&surprise=1")
                    .status == 200)
        }
    }
}
