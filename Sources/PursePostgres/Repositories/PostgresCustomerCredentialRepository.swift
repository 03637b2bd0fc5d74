import Postgres
import PurseCore
import PurseModels

/// ``CustomerCredentialRepository`` on the `ephemeral_keys` and `customer_sessions` tables.
struct PostgresCustomerCredentialRepository: CustomerCredentialRepository {
    let connection: PostgresConnection

    private static let sessionColumns =
        "id, account_id, customer_id, components, created, expires_at, revoked_at IS NOT NULL AS revoked, sheet_settings_id"
    /// The same, of `customer_sessions s` in a join.
    private static let joinedSessionColumns = sessionColumns.split(separator: ", ").map { "s." + $0 }.joined(separator: ", ")

    // MARK: - Ephemeral keys

    func insertEphemeralKey(
        _ key: EphemeralKey, customer: String, account: String, secretHash: [UInt8], sheetSettings: String?
    ) async throws -> Int? {
        // FOR SHARE makes a delete of the customer that commits first visible here, and one that
        // comes later wait for this transaction.
        try await connection.query(
            """
            INSERT INTO ephemeral_keys (id, account_id, customer_id, secret_hash, created, expires, sheet_settings_id)
            SELECT \(key.id), \(account), c.id, \(secretHash), coalesce(t.frozen_time, \(key.created)),
                   coalesce(t.frozen_time, \(key.created)) + \(key.expires - key.created), \(sheetSettings)
            FROM customers c LEFT JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
            WHERE c.id = \(customer) AND c.account_id = \(account) AND NOT c.deleted
            FOR SHARE OF c
            RETURNING created
            """
        ).first.map { try $0["created"] }
    }

    func revokeEphemeralKey(_ id: String, account: String) async throws -> EphemeralKey? {
        let rows = try await connection.query(
            """
            UPDATE ephemeral_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE id = \(id) AND account_id = \(account)
            RETURNING id, customer_id, created, expires
            """
        )
        guard let row = rows.first else { return nil }
        return EphemeralKey(
            id: try row["id"], customer: try row["customer_id"], created: try row["created"], expires: try row["expires"],
            secret: nil
        )
    }

    func revokeEphemeralKeys(customer: String, account: String, now: Int) async throws -> Int {
        try await connection.query(
            """
            UPDATE ephemeral_keys SET revoked_at = now()
            WHERE account_id = \(account) AND customer_id = \(customer) AND revoked_at IS NULL AND expires > \(now)
            """
        ).affectedRows
    }

    func deleteEphemeralKeys(expiredFor grace: Int, now: Int) async throws -> Int {
        try await deleteExpired(from: "ephemeral_keys", as: "k", expiry: "expires", grace: grace, now: now)
    }

    /// Deletes the rows of `table` (code constants, as `alias`) whose `expiry` column is `grace`
    /// seconds past: found by the wall clock (their index), kept while a clock they live by has
    /// not passed them.
    private func deleteExpired(from table: String, as alias: String, expiry: String, grace: Int, now: Int) async throws -> Int {
        try await connection.query(
            """
            DELETE FROM \(unsafeSQL: table) \(unsafeSQL: alias) WHERE \(unsafeSQL: alias).\(unsafeSQL: expiry) < \(now - grace) AND NOT EXISTS (
                SELECT 1 FROM customers c JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
                WHERE c.id = \(unsafeSQL: alias).customer_id AND c.account_id = \(unsafeSQL: alias).account_id AND NOT t.deleted
                  AND \(unsafeSQL: alias).\(unsafeSQL: expiry) >= t.frozen_time - \(grace)
            )
            """
        ).affectedRows
    }

    // MARK: - Customer sessions

    func insertSession(_ session: CustomerSession, account: String, clientSecretHash: [UInt8], apiKeyHash: [UInt8]) async throws -> Int? {
        // Locked, and timed by the customer's test clock, as ephemeral keys are.
        try await connection.query(
            """
            INSERT INTO customer_sessions (id, account_id, customer_id, client_secret_hash, api_key_hash, components, created,
                                           expires_at, sheet_settings_id)
            SELECT \(session.id), \(account), c.id, \(clientSecretHash), \(apiKeyHash),
                   \(StoredJSON.encode(session.components)), coalesce(t.frozen_time, \(session.created)),
                   coalesce(t.frozen_time, \(session.created)) + \(session.expiresAt - session.created), \(session.customerSheetSettings)
            FROM customers c LEFT JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
            WHERE c.id = \(session.customer) AND c.account_id = \(account) AND NOT c.deleted
            FOR SHARE OF c
            RETURNING created
            """
        ).first.map { try $0["created"] }
    }

    func revokeSession(_ id: String, account: String) async throws -> CustomerSession? {
        try await connection.query(
            """
            UPDATE customer_sessions SET revoked_at = coalesce(revoked_at, now())
            WHERE id = \(id) AND account_id = \(account)
            RETURNING \(unsafeSQL: Self.sessionColumns)
            """
        ).first.map(Self.session)
    }

    func session(clientSecretHash: [UInt8], account: String) async throws -> StoredCustomerSession? {
        let rows = try await connection.query(
            """
            SELECT \(unsafeSQL: Self.joinedSessionColumns), s.client_secret_hash, t.frozen_time AS clock_time
            FROM customer_sessions s
            JOIN customers c ON c.id = s.customer_id AND c.account_id = s.account_id AND NOT c.deleted
            LEFT JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
            WHERE s.client_secret_hash = \(clientSecretHash) AND s.account_id = \(account)
            """
        )
        guard let row = rows.first else { return nil }
        return StoredCustomerSession(
            session: try Self.session(row), clientSecretHash: try row["client_secret_hash"], isRevoked: try row["revoked"],
            clockTime: try row["clock_time"]
        )
    }

    func sessionClientSecretHash(_ id: String, account: String) async throws -> [UInt8]? {
        try await connection.query("SELECT client_secret_hash FROM customer_sessions WHERE id = \(id) AND account_id = \(account)")
            .first.map { try $0["client_secret_hash"] }
    }

    func revokeSessions(customer: String, account: String, now: Int) async throws -> Int {
        try await connection.query(
            """
            UPDATE customer_sessions SET revoked_at = now()
            WHERE account_id = \(account) AND customer_id = \(customer) AND revoked_at IS NULL AND expires_at > \(now)
            """
        ).affectedRows
    }

    func deleteSessions(expiredFor grace: Int, now: Int) async throws -> Int {
        try await deleteExpired(from: "customer_sessions", as: "s", expiry: "expires_at", grace: grace, now: now)
    }

    // MARK: - Authentication

    func credential(keyHash hash: [UInt8]) async throws -> StoredCustomerCredential? {
        let rows = try await connection.query(
            """
            SELECT 'ephemeral_key' AS source, k.id, k.account_id, k.customer_id, k.secret_hash AS hash, k.expires AS expires,
                   NULL::jsonb AS components, k.sheet_settings_id, t.frozen_time AS clock_time
            FROM ephemeral_keys k JOIN customers c ON c.id = k.customer_id AND c.account_id = k.account_id
            LEFT JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
            WHERE k.secret_hash = \(hash) AND k.revoked_at IS NULL AND NOT c.deleted
            UNION ALL
            SELECT 'customer_session', s.id, s.account_id, s.customer_id, s.api_key_hash, s.expires_at, s.components,
                   s.sheet_settings_id, t.frozen_time
            FROM customer_sessions s JOIN customers c ON c.id = s.customer_id AND c.account_id = s.account_id
            LEFT JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
            WHERE s.api_key_hash = \(hash) AND s.revoked_at IS NULL AND NOT c.deleted
            """
        )
        guard let row = rows.first else { return nil }
        return StoredCustomerCredential(
            id: try row["id"], accountID: try row["account_id"], customerID: try row["customer_id"], hash: try row["hash"],
            expires: try row["expires"],
            components: try StoredJSON.decodeIfPresent(CustomerSessionComponents.self, from: try row["components"]),
            sheetSettingsID: try row["sheet_settings_id"], clockTime: try row["clock_time"]
        )
    }

    private static func session(_ row: PostgresRow) throws -> CustomerSession {
        var session = CustomerSession(
            id: try row["id"], clientSecret: nil,
            components: try StoredJSON.decode(CustomerSessionComponents.self, from: try row["components"]),
            created: try row["created"], customer: try row["customer_id"], expiresAt: try row["expires_at"]
        )
        session.customerSheetSettings = try row["sheet_settings_id"]
        return session
    }
}
