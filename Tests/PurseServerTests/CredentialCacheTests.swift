import Foundation
import PurseServer
import TestSupport
import Testing

/// Keys are served from memory after their first use; every way a key can stop working still
/// takes effect at once, here and on other servers (PostgreSQL's NOTIFY, migration 0012).
@Suite("The credential cache")
struct CredentialCacheTests {
    @Test func aCachedKeyIsServedFromMemory() async throws {
        try await LiveServer.with { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            #expect(try await account.secret.get("/v1/customers").status == 200)
            // Revoked behind the server's back, with the announcement switched off: only a
            // cached copy can still answer.
            try await server.pool.query("ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed")
            try await server.pool.query("UPDATE api_keys SET revoked_at = now() WHERE account_id = \(account.id)")
            #expect(try await account.secret.get("/v1/customers").status == 200)
            try await server.pool.query("ALTER TABLE api_keys ENABLE TRIGGER api_keys_changed")
        }
    }

    @Test func revocationsThroughTheAPITakeEffectAtOnce() async throws {
        try await LiveServer.with { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let key = try await account.ephemeralKey(for: customer)
            let device = account.client(key: key.secret)
            #expect(try await device.get("/v1/customers/\(customer)").status == 200)
            _ = try await account.secret.delete("/v1/ephemeral_keys/\(key.id)")
            #expect(try await device.get("/v1/customers/\(customer)").status == 401)

            let session = try await account.customerSession(for: customer)
            let sessionDevice = account.client(key: session.apiKey)
            #expect(try await sessionDevice.get("/v1/customers/\(customer)/payment_methods").status == 200)
            _ = try await account.secret.delete("/v1/customer_sessions/\(session.id)")
            #expect(try await sessionDevice.get("/v1/customers/\(customer)/payment_methods").status == 401)

            let other = try await account.ephemeralKey(for: customer)
            let otherDevice = account.client(key: other.secret)
            #expect(try await otherDevice.get("/v1/customers/\(customer)").status == 200)
            _ = try await account.secret.delete("/v1/customers/\(customer)")
            #expect(try await otherDevice.get("/v1/customers/\(customer)").status == 401)
        }
    }

    /// What another server, `purse keys revoke` or an operator's SQL changes reaches this server
    /// through PostgreSQL. Any change to a key's or a session's row is announced (migration 0014),
    /// not only a revocation: the caches find rows by their hashes, so replacing one must not leave
    /// the old key working.
    @Test func changesMadeElsewhereEmptyTheCache() async throws {
        try await LiveServer.with { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let key = try await account.ephemeralKey(for: customer)
            let device = account.client(key: key.secret)
            #expect(try await device.get("/v1/customers/\(customer)").status == 200)
            try await server.pool.query("UPDATE ephemeral_keys SET revoked_at = now() WHERE id = \(key.id)")
            try await Self.eventually { try await device.get("/v1/customers/\(customer)").status == 401 }

            let rehashed = try await account.ephemeralKey(for: customer)
            let rehashedDevice = account.client(key: rehashed.secret)
            let session = try await account.customerSession(for: customer)
            let elements = {
                try await account.publishable.get(
                    "/v1/elements/sessions",
                    query: "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(session.clientSecret)"
                )
            }
            #expect(try await rehashedDevice.get("/v1/customers/\(customer)").status == 200)
            #expect(try await elements().status == 200)
            try await server.pool.query("UPDATE ephemeral_keys SET secret_hash = sha256('replaced'::bytea) WHERE id = \(rehashed.id)")
            try await Self.eventually { try await rehashedDevice.get("/v1/customers/\(customer)").status == 401 }
            try await server.pool.query(
                "UPDATE customer_sessions SET client_secret_hash = sha256('replaced'::bytea) WHERE id = \(session.id)"
            )
            try await Self.eventually { try await elements().error?["code"] == "resource_missing" }
            try await server.pool.query(
                "UPDATE api_keys SET secret_hash = sha256(secret_hash) WHERE account_id = \(account.id) AND kind = 'publishable'"
            )
            try await Self.eventually { try await elements().status == 401 }

            #expect(try await account.secret.get("/v1/customers").status == 200)
            try await server.pool.query("UPDATE api_keys SET revoked_at = now() WHERE account_id = \(account.id) AND kind = 'secret'")
            try await Self.eventually { try await account.secret.get("/v1/customers").status == 401 }
        }
    }

    /// An ephemeral key and a customer session served from memory still expire on time.
    @Test func expiredCredentialsAreRefusedFromMemoryToo() async throws {
        var configuration = ServerConfiguration(port: 0, logLevel: .warning)
        // Long enough that a loaded machine still makes the first calls in time; the wait below
        // follows the credentials' own expiry (whole seconds, so one more second is allowed).
        configuration.ephemeralKeyLifetime = 5
        configuration.customerSessionLifetime = 5
        try await LiveServer.with(configuration: configuration) { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let key = try await account.secret.post(
                "/v1/ephemeral_keys", "customer=\(customer)", headers: ["Stripe-Version": "2020-08-27"]
            ).json
            let device = account.client(key: try #require(key["secret"]?.stringValue))
            let session = try await account.secret.post(
                "/v1/customer_sessions", "customer=\(customer)&components[customer_sheet][enabled]=true"
            ).json
            let clientSecret = try #require(session["client_secret"]?.stringValue)
            let elements = "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(clientSecret)"
            #expect(try await device.get("/v1/customers/\(customer)").status == 200)
            #expect(try await account.publishable.get("/v1/elements/sessions", query: elements).status == 200)

            let expires = max(try #require(key["expires"]?.intValue), try #require(session["expires_at"]?.intValue))
            try await Task.sleep(for: .seconds(max(0, Double(expires + 1) - Date().timeIntervalSince1970)))
            let expiredKey = try await device.get("/v1/customers/\(customer)")
            #expect(expiredKey.status == 401)
            #expect(expiredKey.error?["code"] == "api_key_expired")
            let expiredSession = try await account.publishable.get("/v1/elements/sessions", query: elements)
            #expect(expiredSession.error?["code"] == "customer_session_expired")
        }
    }

    /// While the feed is down a change could be missed, so nothing is served from memory, and
    /// the cache starts over empty when the feed is back.
    @Test func aLostFeedLeavesNoStaleKey() async throws {
        try await LiveServer.with { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            #expect(try await account.secret.get("/v1/customers").status == 200)
            try await server.pool.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'purse-change-feed' AND datname = current_database()"
            )
            // This revocation is announced to nobody: the feed is down and its trigger is off.
            try await server.pool.query("ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed")
            try await server.pool.query("UPDATE api_keys SET revoked_at = now() WHERE account_id = \(account.id)")
            try await Self.eventually { try await account.secret.get("/v1/customers").status == 401 }
            try await Self.waitForTheChangeFeed(server)
            #expect(try await account.secret.get("/v1/customers").status == 401)
        }
    }

    /// Deleting settings unbinds the keys that named them (the foreign key), which changes the
    /// cached credentials too: the deleting server's next request already sees the default.
    @Test func deletedSettingsUnbindCachedKeysAtOnce() async throws {
        try await LiveServer.with { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let settings = try #require(
                try await account.secret.post("/v1/customer_sheet_settings", "name=Cards&payment_method_types[]=card").json["id"]?.stringValue
            )
            let key = try await account.secret.post(
                "/v1/ephemeral_keys", "customer=\(customer)&customer_sheet_settings=\(settings)", headers: ["Stripe-Version": "2020-08-27"]
            )
            let device = account.client(key: try #require(key.json["secret"]?.stringValue))
            #expect(try await device.get("/v1/customer_sheet_settings/current").json["id"]?.stringValue == settings)
            // Unannounced: only this server's own forgetting can make the key see the default.
            try await server.pool.query("ALTER TABLE ephemeral_keys DISABLE TRIGGER ephemeral_keys_changed")
            #expect(try await account.secret.delete("/v1/customer_sheet_settings/\(settings)").status == 200)
            let current = try await device.get("/v1/customer_sheet_settings/current")
            try await server.pool.query("ALTER TABLE ephemeral_keys ENABLE TRIGGER ephemeral_keys_changed")
            #expect(current.json["is_default"] == true, "\(current.json)")
        }
    }

    /// The elements session finds a customer session by its client secret in memory after the
    /// first call; revoking it, deleting its customer or its settings takes effect at once here,
    /// and a change made in SQL as soon as its NOTIFY arrives.
    @Test func customerSessionsAreCachedAndForgottenAtOnce() async throws {
        try await LiveServer.with { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let elements = { (clientSecret: String) in
                try await account.publishable.get(
                    "/v1/elements/sessions",
                    query: "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(clientSecret)"
                )
            }

            // Revoked behind the server's back, unannounced: only a cached copy still answers.
            // The API's revocation leaves `revoked_at` as it is, so it announces nothing either:
            // only the revoking server's own forgetting can refuse the secret next.
            let session = try await account.customerSession(for: customer)
            try await server.pool.query("ALTER TABLE customer_sessions DISABLE TRIGGER customer_sessions_changed")
            try await server.pool.query("UPDATE customer_sessions SET revoked_at = now() WHERE id = \(session.id)")
            let servedFromMemory = try await elements(session.clientSecret)
            _ = try await account.secret.delete("/v1/customer_sessions/\(session.id)")
            let afterRevocation = try await elements(session.clientSecret)
            try await server.pool.query("ALTER TABLE customer_sessions ENABLE TRIGGER customer_sessions_changed")
            #expect(servedFromMemory.status == 200)
            #expect(afterRevocation.error?["code"] == "resource_missing")

            // Settings deleted: the session falls back to the default at once.
            let settings = try #require(
                try await account.secret.post("/v1/customer_sheet_settings", "name=Cards&payment_method_types[]=card").json["id"]?.stringValue
            )
            let bound = try #require(
                try await account.secret.post(
                    "/v1/customer_sessions", "customer=\(customer)&components[customer_sheet][enabled]=true&customer_sheet_settings=\(settings)"
                ).json["client_secret"]?.stringValue
            )
            #expect(try await elements(bound).json["customer_sheet_settings"]?["id"]?.stringValue == settings)
            try await server.pool.query("ALTER TABLE customer_sessions DISABLE TRIGGER customer_sessions_changed")
            _ = try await account.secret.delete("/v1/customer_sheet_settings/\(settings)")
            let unbound = try await elements(bound)
            try await server.pool.query("ALTER TABLE customer_sessions ENABLE TRIGGER customer_sessions_changed")
            #expect(unbound.json["customer_sheet_settings"]?["is_default"] == true, "\(unbound.json)")

            // Changed in SQL: refused once PostgreSQL's NOTIFY arrives.
            let other = try await account.customerSession(for: customer)
            try await server.pool.query("UPDATE customer_sessions SET expires_at = 1 WHERE id = \(other.id)")
            try await Self.eventually { try await elements(other.clientSecret).error?["code"] == "customer_session_expired" }

            // The customer deleted, unannounced: only this server's own forgetting refuses it.
            #expect(try await elements(bound).status == 200)
            try await server.pool.query("ALTER TABLE customers DISABLE TRIGGER customers_deleted")
            try await server.pool.query("ALTER TABLE customer_sessions DISABLE TRIGGER customer_sessions_changed")
            _ = try await account.secret.delete("/v1/customers/\(customer)")
            let afterDeletion = try await elements(bound)
            try await server.pool.query("ALTER TABLE customers ENABLE TRIGGER customers_deleted")
            try await server.pool.query("ALTER TABLE customer_sessions ENABLE TRIGGER customer_sessions_changed")
            #expect(afterDeletion.error?["code"] == "resource_missing")
        }
    }

    /// The settings a list applies are cached too, with the JSON `/current` sends: a change
    /// through the API applies to the next request, one made in SQL as soon as its NOTIFY arrives.
    @Test func sheetSettingsChangesReachTheCachedSettings() async throws {
        try await LiveServer.with { server in
            try await Self.waitForTheChangeFeed(server)
            let account = try await server.makeAccount()
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            for token in ["pm_card_visa", "pm_card_visa_debit"] {
                #expect(try await account.secret.post("/v1/payment_methods/\(token)/attach", "customer=\(customer)").status == 200)
            }
            let device = account.client(key: try await account.ephemeralKey(for: customer).secret)
            let listed = { try await device.get("/v1/payment_methods", query: "customer=\(customer)&type=card").json["data"]?.arrayValue?.count }
            let funding = { try await device.get("/v1/customer_sheet_settings/current").json["saved_payment_method_filter"]?["card"]?["funding"] }
            #expect(try await listed() == 2)
            #expect(try await funding() == [])
            let unfiltered = try await server.pool.query(
                "SELECT saved_payment_method_filter::text AS filter FROM customer_sheet_settings WHERE account_id = \(account.id) AND is_default"
            )
            let original: String = try unfiltered[0]["filter"]

            let update = try await account.secret.post(
                "/v1/customer_sheet_settings/default", "saved_payment_method_filter[card][funding][]=debit"
            )
            #expect(update.status == 200)
            #expect(try await listed() == 1)
            #expect(try await funding() == ["debit"])

            try await server.pool.query(
                "UPDATE customer_sheet_settings SET saved_payment_method_filter = \(original)::jsonb WHERE account_id = \(account.id) AND is_default"
            )
            try await Self.eventually { try await listed() == 2 }
            #expect(try await funding() == [])
        }
    }

    /// Waits until the server's change feed is listening (so its caches serve).
    static func waitForTheChangeFeed(_ server: LiveServer) async throws {
        try await eventually {
            let rows = try await server.pool.query(
                """
                SELECT count(*)::int AS listening FROM pg_stat_activity
                WHERE application_name = 'purse-change-feed' AND datname = current_database()
                  AND (query LIKE 'LISTEN%' OR query = 'SELECT 1')
                """
            )
            return try rows[0]["listening", as: Int32.self] == 1
        }
        // The feed turns the caches on right after its LISTEN returns (its heartbeat comes later).
        try await Task.sleep(for: .milliseconds(50))
    }

    static func eventually(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSetupError("The condition did not hold within 5 seconds")
    }
}
