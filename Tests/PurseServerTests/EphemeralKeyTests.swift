import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("Ephemeral keys")
struct EphemeralKeyTests {
    @Test func createNeedsStripeVersionAndShowsTheSecretOnce() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let noVersion = try await account.secret.post("/v1/ephemeral_keys", "customer=\(customer)")
            #expect(noVersion.status == 400)
            let created = try await account.secret.post("/v1/ephemeral_keys", "customer=\(customer)", headers: ["Stripe-Version": "2020-08-27"])
            #expect(created.status == 200)
            #expect(created.json["object"] == "ephemeral_key")
            #expect(created.json["associated_objects"] == [["type": "customer", "id": .string(customer)]])
            let createdAt = try #require(created.json["created"]?.intValue)
            #expect(created.json["expires"]?.intValue == createdAt + 3600)
            #expect(created.json["secret"]?.stringValue?.hasPrefix("ek_test_") == true)
            #expect(created.json["id"]?.stringValue?.hasPrefix("ephkey_") == true)
            let revoked = try await account.secret.delete("/v1/ephemeral_keys/\(created.json["id"]?.stringValue ?? "")")
            #expect(revoked.status == 200)
            #expect(revoked.json["secret"] == nil)
            #expect(
                try await account.secret.post("/v1/ephemeral_keys", "customer=cus_nothing", headers: ["Stripe-Version": "2020-08-27"]).status == 400)
            let secret = try #require(created.json["secret"]?.stringValue)
            let rows = try await server.pool.query("SELECT count(*) AS n FROM ephemeral_keys WHERE secret_hash::text LIKE '%' || \(secret) || '%'")
            #expect(try rows[0]["n", as: Int.self] == 0)
        }
    }

    @Test func aKeyActsOnlyForItsCustomer() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let alice = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let bob = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let bobsCard = try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(bob)").json["id"]?.stringValue)
            let device = account.client(key: try await account.ephemeralKey(for: alice).secret)

            #expect(try await device.get("/v1/customers/\(alice)").status == 200)
            #expect(try await device.get("/v1/customers/\(bob)").status == 404)
            #expect(try await device.get("/v1/payment_methods/\(bobsCard)").status == 404)
            #expect(try await device.post("/v1/payment_methods/\(bobsCard)/detach").status == 404)
            #expect(try await device.get("/v1/payment_methods", query: "customer=\(bob)&type=card").status == 400)
            #expect(try await device.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(bob)").status == 400)
            #expect(try await device.get("/v1/customers").status == 403)
            #expect(try await device.post("/v1/customers/\(alice)", "name=x").status == 403)
            #expect(try await device.post("/v1/setup_intents").status == 403)
            #expect(try await device.get("/v1/events").status == 403)

            // What the sheet does with it.
            let unattached = try #require(
                try await account.publishable.post("/v1/payment_methods", cardForm("5555555555554444", cvc: "012")).json["id"]?.stringValue)
            #expect(try await device.post("/v1/payment_methods/\(unattached)/attach", "customer=\(alice)").status == 200)
            let list = try await device.get("/v1/payment_methods", query: "customer=\(alice)&type=card&limit=100")
            #expect(list.json["data"]?.arrayValue?.count == 1)
            #expect(try await device.post("/v1/payment_methods/\(unattached)", "billing_details[name]=Alice").status == 200)
            #expect(try await device.post("/v1/customers/\(alice)/selected_payment_option", "option=\(unattached)").status == 200)
            #expect(try await device.post("/v1/payment_methods/\(unattached)/detach").status == 200)
            #expect(try await device.get("/v1/payment_methods/\(unattached)").status == 404, "detached: no longer the customer's")
        }
    }

    @Test func expiredAndRevokedKeysAre401AtOnce() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let expiring = try await account.ephemeralKey(for: customer)
            try await server.pool.query("UPDATE ephemeral_keys SET expires = \(Int(Date().timeIntervalSince1970) - 1) WHERE id = \(expiring.id)")
            let expired = try await account.client(key: expiring.secret).get("/v1/customers/\(customer)")
            #expect(expired.status == 401)
            #expect(expired.error?["message"]?.stringValue?.hasPrefix("Expired API Key provided: ek_test_") == true)

            let revoking = try await account.ephemeralKey(for: customer)
            #expect(try await account.client(key: revoking.secret).get("/v1/customers/\(customer)").status == 200)
            _ = try await account.secret.delete("/v1/ephemeral_keys/\(revoking.id)")
            #expect(try await account.client(key: revoking.secret).get("/v1/customers/\(customer)").status == 401)

            let swept = try await server.sweep()
            #expect(swept.expiredEphemeralKeys == 0, "keys are kept a day after expiry before they are deleted")
            try await server.pool.query("UPDATE ephemeral_keys SET expires = expires - 90000 WHERE id = \(expiring.id)")
            #expect(try await server.sweep().expiredEphemeralKeys == 1)
        }
    }

    @Test func revokeCredentialsAndCustomerDeleteSignOutEverywhere() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let phone = try await account.ephemeralKey(for: customer)
            let tablet = try await account.ephemeralKey(for: customer)
            let revoked = try await account.secret.post("/v1/customers/\(customer)/revoke_credentials")
            #expect(revoked.status == 200)
            #expect(revoked.json["ephemeral_keys_revoked"] == 2)
            #expect(try await account.client(key: phone.secret).get("/v1/customers/\(customer)").status == 401)
            #expect(try await account.client(key: tablet.secret).get("/v1/customers/\(customer)").status == 401)

            let laptop = try await account.ephemeralKey(for: customer)
            _ = try await account.secret.delete("/v1/customers/\(customer)")
            #expect(try await account.client(key: laptop.secret).get("/v1/customers/\(customer)").status == 401)
        }
    }
}
