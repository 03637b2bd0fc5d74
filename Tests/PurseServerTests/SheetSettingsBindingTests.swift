import Foundation
import PurseCore
import PurseModels
import TestSupport
import Testing

@Suite("Sheet settings: binding, duplicate cards and the shared default")
struct SheetSettingsBindingTests {
    @Test func settingsBoundToAnIntentAKeyAndASessionWinOverTheDefault() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let cardsOnly = try #require(
                try await api.post("/v1/customer_sheet_settings", "name=Cards&payment_method_types[]=card").json["id"]?.stringValue)
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let sepa =
                "payment_method_data[type]=sepa_debit&payment_method_data[sepa_debit][iban]=DE89370400440532013000&payment_method_data[billing_details][name]=J&payment_method_data[billing_details][email]=j%40x.io&mandate_data[customer_acceptance][type]=online&mandate_data[customer_acceptance][online][infer_from_client]=true"
            let types = "payment_method_types[]=card&payment_method_types[]=sepa_debit"

            // An intent naming the settings: its confirmation may add cards only.
            let bound = try await api.post("/v1/setup_intents", "customer=\(customer)&\(types)&customer_sheet_settings=\(cardsOnly)")
            #expect(bound.json["customer_sheet_settings"]?.stringValue == cardsOnly)
            let refused = try await account.publishable.post(
                "/v1/setup_intents/\(bound.json["id"]?.stringValue ?? "")/confirm",
                "client_secret=\(bound.json["client_secret"]?.stringValue ?? "")&\(sepa)"
            )
            #expect(refused.status == 400)
            #expect(refused.error?["param"] == "payment_method_data[type]")
            // An intent without: the account default, which allows SEPA.
            let plain = try await api.post("/v1/setup_intents", "customer=\(customer)&\(types)")
            let allowed = try await account.publishable.post(
                "/v1/setup_intents/\(plain.json["id"]?.stringValue ?? "")/confirm",
                "client_secret=\(plain.json["client_secret"]?.stringValue ?? "")&\(sepa)"
            )
            #expect(allowed.json["status"] == "succeeded", "\(allowed.json)")
            // The secret key is never restricted, even on the bound intent.
            #expect(
                try await api.post(
                    "/v1/setup_intents/\(bound.json["id"]?.stringValue ?? "")/confirm",
                    sepa.replacingOccurrences(
                        of: "[online][infer_from_client]=true",
                        with: "[online][ip_address]=127.0.0.1&mandate_data[customer_acceptance][online][user_agent]=curl")
                ).json["status"] == "succeeded")

            // A key and a session created with settings see them as current; an unbound key sees the default.
            let key = try await api.post(
                "/v1/ephemeral_keys", "customer=\(customer)&customer_sheet_settings=\(cardsOnly)", headers: ["Stripe-Version": "2020-08-27"])
            let device = account.client(key: try #require(key.json["secret"]?.stringValue))
            #expect(try await device.get("/v1/customer_sheet_settings/current").json["id"]?.stringValue == cardsOnly)
            let unbound = account.client(key: try await account.ephemeralKey(for: customer).secret)
            #expect(try await unbound.get("/v1/customer_sheet_settings/current").json["is_default"] == true)
            let session = try await api.post(
                "/v1/customer_sessions", "customer=\(customer)&components[customer_sheet][enabled]=true&customer_sheet_settings=\(cardsOnly)"
            )
            let elements = try await account.publishable.get(
                "/v1/elements/sessions",
                query:
                    "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(session.json["client_secret"]?.stringValue ?? "")"
            )
            #expect(elements.json["customer_sheet_settings"]?["id"]?.stringValue == cardsOnly)
            #expect(
                try await account.publishable.get("/v1/elements/sessions", query: "type=deferred_intent&deferred_intent[mode]=setup").json[
                    "customer_sheet_settings"]?["is_default"] == true)
            #expect(try await api.post("/v1/setup_intents", "customer_sheet_settings=css_nothing").error?["param"] == "customer_sheet_settings")
            #expect(try await device.get("/v1/customer_sheet_settings/default").status == 403)

            // Deleting the settings sends what named them back to the default.
            _ = try await api.delete("/v1/customer_sheet_settings/\(cardsOnly)")
            #expect(try await device.get("/v1/customer_sheet_settings/current").json["is_default"] == true)
        }
    }

    @Test func duplicateCardsAreReusedWhenTheSettingsSaySo() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            _ = try await api.post("/v1/customer_sheet_settings/default", "duplicate_cards=reuse")
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let device = account.client(key: try await account.ephemeralKey(for: customer).secret)
            let year = Calendar.year(of: Clock.now)

            func save(expYear: Int) async throws -> String {
                let created = try await account.publishable.post("/v1/payment_methods", cardForm("4242424242424242", year: expYear, cvc: "012"))
                return try await device.post("/v1/payment_methods/\(created.json["id"]?.stringValue ?? "")/attach", "customer=\(customer)").json[
                    "id"]?.stringValue ?? ""
            }
            let first = try await save(expYear: year + 3)
            let same = try await save(expYear: year + 3)
            #expect(same == first, "the same card and expiry: the saved method comes back")
            let renewed = try await save(expYear: year + 6)
            #expect(renewed == first)
            #expect(
                try await api.get("/v1/payment_methods/\(first)").json["card"]?["exp_year"] == .int(year + 6), "a new expiry updates the saved one")
            #expect(try await api.get("/v1/customers/\(customer)/payment_methods").json["data"]?.arrayValue?.count == 1)

            // Through a setup intent confirmed by the app, too.
            let intent = try await api.post("/v1/setup_intents", "customer=\(customer)")
            let confirmed = try await account.publishable.post(
                "/v1/setup_intents/\(intent.json["id"]?.stringValue ?? "")/confirm",
                confirmForm(clientSecret: intent.json["client_secret"]?.stringValue ?? "", number: "4242424242424242")
            )
            #expect(confirmed.json["payment_method"]?["id"]?.stringValue == first)
            #expect(try await api.get("/v1/customers/\(customer)/payment_methods").json["data"]?.arrayValue?.count == 1)

            // A different card is saved as usual; and the secret key is never restricted.
            #expect(try await device.post("/v1/payment_methods/pm_card_mastercard/attach", "customer=\(customer)").json["id"]?.stringValue != first)
            let copy = try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)")
            #expect(copy.json["id"]?.stringValue != first)

            // With `allow` (the initial value) a copy is a new method.
            _ = try await api.post("/v1/customer_sheet_settings/default", "duplicate_cards=allow")
            #expect(try await save(expYear: year + 6) != first)
        }
    }

    /// The settings a confirmation ran under are stored with it, so the authentication page
    /// finishes it under them: here the intent's `duplicate_cards: reuse` reuses the saved card.
    @Test func aConfirmationFinishedOnTheAuthenticationPageKeepsItsSettings() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let reuse = try #require(
                try await api.post("/v1/customer_sheet_settings", "name=Reuse&duplicate_cards=reuse").json["id"]?.stringValue)
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let saved = try #require(
                try await api.post("/v1/payment_methods/pm_card_authenticationRequiredOnSetup/attach", "customer=\(customer)").json["id"]?
                    .stringValue)
            let intent = try await api.post(
                "/v1/setup_intents", "customer=\(customer)&customer_sheet_settings=\(reuse)&return_url=myapp%3A%2F%2Fdone")
            let id = try #require(intent.json["id"]?.stringValue)
            let pending = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm",
                "payment_method=pm_card_authenticationRequiredOnSetup&client_secret=\(intent.json["client_secret"]?.stringValue ?? "")"
            )
            #expect(pending.json["status"] == "requires_action", "\(pending.json)")
            let pageURL = try #require(pending.json["next_action"]?["redirect_to_url"]?["url"]?.stringValue)
            let connection = try await RawHTTPConnection.open(port: server.port)
            let form = "action=complete"
            try await connection.write(
                "POST \(pageURL.dropFirst("http://127.0.0.1:\(server.port)".count)) HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
            )
            #expect(try await connection.response().status == 303, "back to return_url")
            let done = try await api.get("/v1/setup_intents/\(id)")
            #expect(done.json["status"] == "succeeded")
            #expect(done.json["payment_method"]?.stringValue == saved)
            #expect(try await api.get("/v1/customers/\(customer)/payment_methods").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func theSelectedOptionSaysWhenItCannotBeShown() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let credit = try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
            let path = "/v1/customers/\(customer)/selected_payment_option"
            #expect(try await api.post(path, "option=\(credit)").json["unavailable_reason"] == .null)
            _ = try await api.post("/v1/customer_sheet_settings/default", "saved_payment_method_filter[card][funding][]=debit")
            let device = account.client(key: try await account.ephemeralKey(for: customer).secret)
            #expect(try await device.get(path).json["unavailable_reason"] == "filtered")
            _ = try await api.post("/v1/customer_sheet_settings/default", "saved_payment_method_filter[card][funding]=")
            #expect(try await device.get(path).json["unavailable_reason"] == .null)
            try await FilterWorld.age(credit, to: Clock.now - 40 * 86_400, pool: server.pool)
            #expect(try await device.get(path).json["unavailable_reason"] == "expired")
        }
    }
}
