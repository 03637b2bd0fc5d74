public import Postgres
public import PurseModels

/// `POST /v1/ephemeral_keys` and `DELETE /v1/ephemeral_keys/{id}`: short-lived credentials for
/// one customer's device. The secret is shown once and stored only as a hash.
public struct EphemeralKeyService: Sendable {
    private let pool: PostgresClient
    /// Seconds a new key lives.
    private let lifetime: Int
    /// Emptied at a revocation, so it takes effect on this server before the response is sent
    /// (other servers hear of it through PostgreSQL).
    private let caches: ChangeCaches

    public init(pool: PostgresClient, lifetime: Int, caches: ChangeCaches) {
        self.pool = pool
        self.lifetime = lifetime
        self.caches = caches
    }

    public struct CreateParameters: Decodable, Sendable {
        public var customer: String
        /// Sheet settings for the key's sheet (an id or `default`); otherwise the account's default.
        public var customerSheetSettings: String?

        enum CodingKeys: String, CodingKey {
            case customer
            case customerSheetSettings = "customer_sheet_settings"
        }
    }

    public func create(_ params: CreateParameters, by caller: Credential) async throws -> EphemeralKey {
        let secret = "ek_test_" + ObjectID.randomBase62(length: 48)
        let now = Clock.now
        let key = EphemeralKey(
            id: ObjectID.make(.ephemeralKey), customer: params.customer, created: now, expires: now + lifetime, secret: secret
        )
        // One transaction with the settings and the customer locked: a concurrent delete of
        // either waits for the key, then unbinds or revokes it (FOR SHARE makes a delete that
        // commits first visible here, so no key outlives its customer's deletion).
        let inserted = try await pool.withTransaction { connection in
            let settings = try await SheetSettingsService.bindable(
                params.customerSheetSettings, account: caller.accountID, in: PostgresDatabase.repositories(on: connection))
            return try await connection.query(
                """
                INSERT INTO ephemeral_keys (id, account_id, customer_id, secret_hash, created, expires, sheet_settings_id)
                SELECT \(key.id), \(caller.accountID), c.id, \(SecretHash.sha256(secret)), \(key.created), \(key.expires), \(settings)
                FROM customers c WHERE c.id = \(params.customer) AND c.account_id = \(caller.accountID) AND NOT c.deleted
                FOR SHARE OF c
                RETURNING id
                """
            )
        }
        guard !inserted.isEmpty else { throw PurseError.noSuch("customer", params.customer, param: "customer") }
        return key
    }

    /// Revokes a key at once; returns it (without its secret).
    public func revoke(_ id: String, by caller: Credential) async throws -> EphemeralKey {
        let rows = try await pool.query(
            """
            UPDATE ephemeral_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE id = \(id) AND account_id = \(caller.accountID)
            RETURNING id, customer_id, created, expires
            """
        )
        guard let row = rows.first else { throw PurseError.noSuch("ephemeral key", id, param: "id") }
        caches.invalidate(topic: ChangeCaches.credentialsTopic)
        return EphemeralKey(
            id: try row["id"], customer: try row["customer_id"], created: try row["created"], expires: try row["expires"],
            secret: nil
        )
    }

    /// Deletes keys that expired more than a day ago; returns how many.
    public func sweepExpired() async throws -> Int {
        try await pool.query("DELETE FROM ephemeral_keys WHERE expires < \(Clock.now - 86_400)").affectedRows
    }

    /// Revokes every key of a customer (in the caller's transaction): sign out everywhere.
    static func revokeAll(customer: String, account: String, on connection: isolated PostgresConnection) async throws -> Int {
        try await connection.query(
            """
            UPDATE ephemeral_keys SET revoked_at = now()
            WHERE account_id = \(account) AND customer_id = \(customer) AND revoked_at IS NULL AND expires > \(Clock.now)
            """
        ).affectedRows
    }
}
