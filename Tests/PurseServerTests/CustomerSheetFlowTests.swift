import Foundation
import PurseModels
import TestSupport
import Testing

/// The ephemeral-key customer sheet, step by step as stripe-ios performs it (stripe-reference
/// §11.2): the app's backend mints a key and setup intents with the secret key; the device uses
/// the ephemeral key and the publishable key.
@Suite("The ephemeral-key customer sheet flow")
struct CustomerSheetFlowTests {
    @Test func addDeclineAuthenticateRemoveAndPickADefault() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let backend = account.secret
            let customer = try #require(try await backend.post("/v1/customers", "email=sheet%40example.com").json["id"]?.stringValue)
            let device = account.client(key: try await account.ephemeralKey(for: customer).secret)
            let publishable = account.publishable
            let iOS = ["Stripe-Version": "2020-08-27; elements_beta=v1"]

            // The sheet opens: one list per type, limit=100, with the ephemeral key.
            for type in ["card", "us_bank_account", "sepa_debit"] {
                let list = try await device.get("/v1/payment_methods", query: "customer=\(customer)&type=\(type)&limit=100", headers: iOS)
                #expect(list.status == 200)
                #expect(list.json["data"] == [])
            }
            let customerObject = try await device.get("/v1/customers/\(customer)", headers: iOS)
            #expect(customerObject.json["invoice_settings"]?["default_payment_method"] == .null)

            // Add a card: the backend makes a setup intent, the device reads the elements session and confirms.
            func newIntent() async throws -> (id: String, secret: String) {
                let intent = try await backend.post("/v1/setup_intents", "customer=\(customer)")
                return (intent.json["id"]?.stringValue ?? "", intent.json["client_secret"]?.stringValue ?? "")
            }
            let first = try await newIntent()
            let session = try await publishable.get(
                "/v1/elements/sessions",
                query: "type=setup_intent&client_secret=\(first.secret)&expand[0]=payment_method_preference.setup_intent.payment_method&locale=en-US",
                headers: iOS
            )
            #expect(session.json["payment_method_preference"]?["ordered_payment_method_types"] == ["card"])
            let added = try await publishable.post(
                "/v1/setup_intents/\(first.id)/confirm", confirmForm(clientSecret: first.secret, number: "4242424242424242"), headers: iOS)
            #expect(added.json["status"] == "succeeded")
            let visa = try #require(added.json["payment_method"]?["id"]?.stringValue)

            // A declined card: the sheet shows the error; nothing is saved.
            let second = try await newIntent()
            let declined = try await publishable.post(
                "/v1/setup_intents/\(second.id)/confirm", confirmForm(clientSecret: second.secret, number: "4000000000000002"), headers: iOS)
            #expect(declined.status == 402)
            #expect(declined.error?["decline_code"] == "generic_decline")

            // 3D Secure: completed on the page, the card is saved; failed, it is not.
            for completes in [true, false] {
                let intent = try await newIntent()
                let pending = try await publishable.post(
                    "/v1/setup_intents/\(intent.id)/confirm", confirmForm(clientSecret: intent.secret, number: "4000002760003184"), headers: iOS)
                let url = try #require(pending.json["next_action"]?["redirect_to_url"]?["url"]?.stringValue)
                let page = try await HTTPCall.send("POST", URL(string: url)!, body: "action=\(completes ? "complete" : "fail")")
                #expect(page.status == 200)
                let refreshed = try await publishable.get("/v1/setup_intents/\(intent.id)", query: "client_secret=\(intent.secret)", headers: iOS)
                #expect(refreshed.json["status"]?.stringValue == (completes ? "succeeded" : "requires_payment_method"))
            }

            let cards = try await device.get("/v1/payment_methods", query: "customer=\(customer)&type=card&limit=100", headers: iOS)
            let ids = try #require(cards.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue })
            #expect(ids.count == 2)
            #expect(ids.last == visa)

            // Pick a default (shared by every device), then remove it: the default clears.
            let picked = try await device.post("/v1/customers/\(customer)/selected_payment_option", "option=\(visa)", headers: iOS)
            #expect(picked.json["option"]?.stringValue == visa)
            #expect(try await backend.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]?.stringValue == visa)
            let removed = try await device.post("/v1/payment_methods/\(visa)/detach", headers: iOS)
            #expect(removed.status == 200)
            #expect(try await device.get("/v1/customers/\(customer)/selected_payment_option").json["option"] == .null)
            #expect(
                try await device.get("/v1/payment_methods", query: "customer=\(customer)&type=card&limit=100").json["data"]?.arrayValue?.count == 1)
        }
    }
}
