import Foundation
import PurseModels
import TestSupport
import Testing

extension TestAccount {
    /// A customer session for `customer` with the customer sheet enabled and `features`; returns
    /// its id, client secret and the key the elements session hands out.
    func customerSession(for customer: String, features: String = "") async throws -> (id: String, clientSecret: String, apiKey: String) {
        let created = try await secret.post(
            "/v1/customer_sessions", "customer=\(customer)&components[customer_sheet][enabled]=true" + features
        )
        guard let id = created.json["id"]?.stringValue, let clientSecret = created.json["client_secret"]?.stringValue else {
            throw TestSetupError("No customer session: \(created.json)")
        }
        let elements = try await publishable.get(
            "/v1/elements/sessions",
            query: "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(clientSecret)"
        )
        guard let apiKey = elements.json["customer"]?["customer_session"]?["api_key"]?.stringValue else {
            throw TestSetupError("No api_key: \(elements.json)")
        }
        return (id, clientSecret, apiKey)
    }
}

@Suite("Customer sessions and the elements endpoints")
struct CustomerSessionTests {
    @Test func createFillsStripesDefaults() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let created = try await api.post(
                "/v1/customer_sessions",
                "customer=\(customer)&components[customer_sheet][enabled]=true&components[customer_sheet][features][payment_method_remove]=enabled&expand[]=customer"
            )
            #expect(created.status == 200, "\(created.json)")
            #expect(created.json["object"] == "customer_session")
            #expect(created.json["id"]?.stringValue?.hasPrefix("cuss_") == true)
            #expect(created.json["client_secret"]?.stringValue?.hasPrefix("cuss_secret_") == true)
            #expect(created.json["customer"]?["id"]?.stringValue == customer, "expand[]=customer")
            let sheet = created.json["components"]?["customer_sheet"]
            #expect(sheet?["features"]?["payment_method_allow_redisplay_filters"] == ["always"])
            #expect(sheet?["features"]?["payment_method_remove"] == "enabled")
            #expect(sheet?["features"]?["payment_method_remove_last"] == "enabled")
            #expect(sheet?["features"]?["payment_method_sync_default"] == "disabled")
            #expect(created.json["components"]?["payment_element"] == ["enabled": false, "features": .null])
            #expect(created.json["expires_at"]?.intValue == (created.json["created"]?.intValue ?? 0) + 1800)

            let revoked = try await api.delete("/v1/customer_sessions/\(created.json["id"]?.stringValue ?? "")")
            #expect(revoked.status == 200)
            #expect(revoked.json["client_secret"] == nil)
        }
    }

    @Test(arguments: [
        ("components[customer_sheet][enabled]=true", "customer"),
        ("customer=CUSTOMER", "components"),
        ("customer=CUSTOMER&components[customer_sheet][enabled]=false", "components"),
        (
            "customer=CUSTOMER&components[customer_sheet][enabled]=true&components[customer_sheet][features][payment_method_remove]=maybe",
            "components[customer_sheet][features][payment_method_remove]"
        ),
        (
            "customer=CUSTOMER&components[payment_element][enabled]=true&components[payment_element][features][payment_method_redisplay_limit]=11",
            "components[payment_element][features][payment_method_redisplay_limit]"
        ),
        (
            "customer=CUSTOMER&components[customer_sheet][enabled]=true&components[customer_sheet][features][payment_method_allow_redisplay_filters][]=sometimes",
            "components[customer_sheet][features][payment_method_allow_redisplay_filters][0]"
        ),
        ("customer=cus_nothing&components[customer_sheet][enabled]=true", "customer"),
    ])
    func badCreationsAre400sNamingTheParameter(form: String, param: String) async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let call = try await api.post("/v1/customer_sessions", form.replacingOccurrences(of: "CUSTOMER", with: customer))
            #expect(call.status == 400, "\(call.json)")
            #expect(call.error?["param"]?.stringValue == param)
        }
    }

    /// The customer-session sheet flow as stripe-ios performs it (stripe-reference §11.4).
    @Test func theSessionSheetFlow() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let backend = account.secret
            let customer = try #require(try await backend.post("/v1/customers").json["id"]?.stringValue)
            var methods: [String: String] = [:]
            for redisplay in ["always", "limited", "unspecified"] {
                let id = try #require(
                    try await backend.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
                _ = try await backend.post("/v1/payment_methods/\(id)", "allow_redisplay=\(redisplay)")
                methods[redisplay] = id
            }
            let session = try await account.customerSession(
                for: customer,
                features:
                    "&components[customer_sheet][features][payment_method_remove]=enabled&components[customer_sheet][features][payment_method_allow_redisplay_filters][0]=always&components[customer_sheet][features][payment_method_allow_redisplay_filters][1]=limited"
            )
            let elementsQuery =
                "type=deferred_intent&deferred_intent[mode]=setup&deferred_intent[payment_method_types][0]=card&customer_session_client_secret=\(session.clientSecret)"
            let elements = try await account.publishable.get("/v1/elements/sessions", query: elementsQuery)
            let shown = elements.json["customer"]?["payment_methods"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(shown == [methods["limited"]!, methods["always"]!], "the redisplay filters hide 'unspecified'")
            #expect(elements.json["customer"]?["default_payment_method"] == .null)
            let again = try await account.publishable.get("/v1/elements/sessions", query: elementsQuery)
            #expect(again.json["customer"]?["customer_session"]?["api_key"]?.stringValue == session.apiKey, "the same key on every call")
            #expect(again.json["customer"]?["customer_session"]?["api_key_expiry"]?.intValue != nil)

            let device = account.client(key: session.apiKey)
            let defaulted = try await device.post(
                "/v1/elements/customers/\(customer)/set_default_payment_method", "payment_method=\(methods["always"]!)"
            )
            #expect(defaulted.status == 200, "\(defaulted.json)")
            #expect(defaulted.json["object"] == "customer")
            #expect(
                try await backend.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]?.stringValue
                    == methods["always"])
            #expect(
                try await account.publishable.get("/v1/elements/sessions", query: elementsQuery).json["customer"]?["default_payment_method"]?
                    .stringValue == methods["always"])
            #expect(try await device.get("/v1/customers/\(customer)/selected_payment_option").json["option"]?.stringValue == methods["always"])

            let removed = try await device.post(
                "/v1/elements/payment_methods/\(methods["always"]!)/detach", "customer_session_client_secret=\(session.clientSecret)")
            #expect(removed.status == 200, "\(removed.json)")
            #expect(try await backend.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"] == .null)
            #expect(
                try await device.post("/v1/elements/payment_methods/\(methods["limited"]!)/detach").status == 400, "the session's secret is required")
            #expect(
                try await device.post(
                    "/v1/elements/payment_methods/\(methods["limited"]!)/detach", "customer_session_client_secret=cuss_secret_wrong"
                ).status == 400)
        }
    }

    @Test func removalIsRefusedWhenTheFeatureIsDisabled() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let first = try #require(
                try await account.secret.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
            let locked = try await account.customerSession(for: customer)
            let device = account.client(key: locked.apiKey)
            let viaElements = try await device.post(
                "/v1/elements/payment_methods/\(first)/detach", "customer_session_client_secret=\(locked.clientSecret)")
            #expect(viaElements.status == 403)
            #expect(viaElements.error?["code"] == "customer_session_remove_disabled")
            #expect(try await device.post("/v1/payment_methods/\(first)/detach").status == 403, "on the plain endpoint alike")
            // Setting the default is never gated.
            #expect(
                try await device.post(
                    "/v1/elements/customers/\(customer)/set_default_payment_method",
                    "payment_method=\(first)&customer_session_client_secret=\(locked.clientSecret)"
                ).status == 200)

            let keepLast = try await account.customerSession(
                for: customer,
                features:
                    "&components[customer_sheet][features][payment_method_remove]=enabled&components[customer_sheet][features][payment_method_remove_last]=disabled"
            )
            let last = try await account.client(key: keepLast.apiKey).post("/v1/payment_methods/\(first)/detach")
            #expect(last.status == 403)
            #expect(last.error?["code"] == "customer_session_remove_last_disabled")
            #expect(try await account.secret.get("/v1/payment_methods/\(first)").json["customer"]?.stringValue == customer)
        }
    }

    @Test func theKeyStopsForOtherCustomersAtExpiryAndAtRevocation() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let alice = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let bob = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let bobsCard = try #require(
                try await account.secret.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(bob)").json["id"]?.stringValue)
            let session = try await account.customerSession(
                for: alice, features: "&components[customer_sheet][features][payment_method_remove]=enabled")
            let device = account.client(key: session.apiKey)
            #expect(try await device.get("/v1/customers/\(alice)").status == 200)
            #expect(try await device.get("/v1/customers/\(bob)").status == 404)
            #expect(
                try await device.post("/v1/elements/payment_methods/\(bobsCard)/detach", "customer_session_client_secret=\(session.clientSecret)")
                    .status == 404)
            #expect(
                try await device.post(
                    "/v1/elements/customers/\(bob)/set_default_payment_method",
                    "payment_method=\(bobsCard)&customer_session_client_secret=\(session.clientSecret)"
                ).status == 404)

            try await server.endCredential("UPDATE customer_sessions SET expires_at = 1 WHERE id = \(session.id)", account: account, customer: alice)
            let expired = try await device.get("/v1/customers/\(alice)")
            #expect(expired.status == 401)
            #expect(expired.error?["message"]?.stringValue?.hasPrefix("Expired API Key provided") == true)
            let expiredElements = try await account.publishable.get(
                "/v1/elements/sessions",
                query: "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(session.clientSecret)"
            )
            #expect(expiredElements.error?["code"] == "customer_session_expired")

            let revoking = try await account.customerSession(for: alice)
            _ = try await account.secret.delete("/v1/customer_sessions/\(revoking.id)")
            #expect(try await account.client(key: revoking.apiKey).get("/v1/customers/\(alice)").status == 401)

            let everywhere = try await account.customerSession(for: alice)
            let revocation = try await account.secret.post("/v1/customers/\(alice)/revoke_credentials")
            #expect(revocation.json["customer_sessions_revoked"] == 1)
            #expect(try await account.client(key: everywhere.apiKey).get("/v1/customers/\(alice)").status == 401)
        }
    }
}
