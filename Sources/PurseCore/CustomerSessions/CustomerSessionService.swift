import Foundation
public import Postgres
public import PurseModels

/// Customer sessions: created with the secret key, revoked with `DELETE`, presented by the app
/// (the client secret, with the publishable key) to `GET /v1/elements/sessions`, which hands
/// out the session's ephemeral key.
public struct CustomerSessionService: Sendable {
    private let pool: PostgresClient
    private let secrets: DerivedSecrets
    /// Seconds a new session lives.
    private let lifetime: Int
    /// Emptied at a revocation, so it takes effect on this server before the response is sent.
    private let caches: ChangeCaches

    public init(pool: PostgresClient, masterKey: MasterKey, lifetime: Int, caches: ChangeCaches) {
        self.pool = pool
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.lifetime = lifetime
        self.caches = caches
    }

    static let columns = "id, account_id, customer_id, components, created, expires_at, revoked_at IS NOT NULL AS revoked, sheet_settings_id"

    public func create(_ params: CustomerSessionCreateParameters, by caller: Credential) async throws -> CustomerSession {
        let components = try params.resolvedComponents()
        let now = Clock.now
        let clientSecret = "cuss_secret_" + ObjectID.randomBase62(length: 48)
        var session = CustomerSession(
            id: ObjectID.make(.customerSession), clientSecret: clientSecret, components: components, created: now,
            customer: params.customer, expiresAt: now + lifetime
        )
        let apiKey = secrets.customerSessionAPIKey(session.id)
        // As for ephemeral keys: one transaction, the settings and the customer locked, so a
        // concurrent delete of either cannot leave the session half-bound or alive.
        let (id, expiresAt) = (session.id, session.expiresAt)
        let (settings, inserted) = try await pool.withTransaction { connection in
            let settings = try await SheetSettingsService.bindable(
                params.customerSheetSettings, account: caller.accountID, in: PostgresDatabase.repositories(on: connection))
            let inserted = try await connection.query(
                """
                INSERT INTO customer_sessions (id, account_id, customer_id, client_secret_hash, api_key_hash, components, created,
                                               expires_at, sheet_settings_id)
                SELECT \(id), \(caller.accountID), c.id, \(SecretHash.sha256(clientSecret)), \(SecretHash.sha256(apiKey)),
                       \(StoredJSON.encode(components)), \(now), \(expiresAt), \(settings)
                FROM customers c WHERE c.id = \(params.customer) AND c.account_id = \(caller.accountID) AND NOT c.deleted
                FOR SHARE OF c
                RETURNING id
                """
            )
            return (settings, inserted)
        }
        session.customerSheetSettings = settings
        guard !inserted.isEmpty else { throw PurseError.noSuch("customer", params.customer, param: "customer") }
        return session
    }

    /// Revokes a session at once (its client secret and its key); returns it.
    public func revoke(_ id: String, by caller: Credential) async throws -> CustomerSession {
        let rows = try await pool.query(
            """
            UPDATE customer_sessions SET revoked_at = coalesce(revoked_at, now())
            WHERE id = \(id) AND account_id = \(caller.accountID)
            RETURNING \(unsafeSQL: Self.columns)
            """
        )
        guard let row = rows.first else { throw PurseError.noSuch("customer session", id, param: "id") }
        caches.invalidate(topic: ChangeCaches.credentialsTopic)
        return try Self.session(row)
    }

    /// A live session of `account` by its client secret, with the key it hands out.
    ///
    /// Sessions found are kept in memory (``ChangeCaches/customerSessions``), so a sheet opened
    /// again costs the elements session one statement fewer; a revocation, a deleted customer or
    /// a changed session empties that cache as the credentials' does. Unknown, revoked and
    /// expired sessions are never cached, and the expiry is checked at every use.
    public func resolve(clientSecret: String, account: String) async throws -> (session: CustomerSession, apiKey: String) {
        let key = SecretKey(account: account, hash: SecretHash.sha256(clientSecret))
        let session: CustomerSession
        if let cached = caches.customerSessions.value(for: key) {
            session = cached
        } else {
            session = try await live(key)
        }
        guard session.expiresAt > Clock.now else {
            throw PurseError(
                .invalidRequest, code: "customer_session_expired", message: "The customer session has expired.",
                param: "customer_session_client_secret"
            )
        }
        return (session, secrets.customerSessionAPIKey(session.id))
    }

    /// How the cache finds a session: its account and the SHA-256 of its client secret.
    struct SecretKey: Hashable, Sendable {
        let account: String
        let hash: [UInt8]
    }

    /// The session `key` names from the database, unless it is revoked or its customer deleted.
    private func live(_ key: SecretKey) async throws -> CustomerSession {
        let ticket = caches.customerSessions.ticket()
        let rows = try await pool.query(
            """
            SELECT \(unsafeSQL: Self.columns), client_secret_hash FROM customer_sessions s
            WHERE client_secret_hash = \(key.hash) AND account_id = \(key.account)
              AND EXISTS (SELECT 1 FROM customers c WHERE c.id = s.customer_id AND NOT c.deleted)
            """
        )
        guard let row = rows.first, SecretHash.constantTimeEquals(try row["client_secret_hash"], key.hash),
            try !row["revoked", as: Bool.self]
        else {
            throw PurseError(
                .invalidRequest, code: "resource_missing", message: "No such customer session: the client secret is unknown or revoked.",
                param: "customer_session_client_secret"
            )
        }
        let session = try Self.session(row)
        if session.expiresAt > Clock.now { caches.customerSessions.store(session, for: key, ticket: ticket) }
        return session
    }

    /// Whether `clientSecret` is the client secret of session `id`.
    public func isClientSecret(_ clientSecret: String, of id: String) async throws -> Bool {
        let rows = try await pool.query("SELECT client_secret_hash FROM customer_sessions WHERE id = \(id)")
        guard let row = rows.first else { return false }
        return SecretHash.constantTimeEquals(try row["client_secret_hash"], SecretHash.sha256(clientSecret))
    }

    /// Deletes sessions that expired more than a day ago; returns how many.
    public func sweepExpired() async throws -> Int {
        try await pool.query("DELETE FROM customer_sessions WHERE expires_at < \(Clock.now - 86_400)").affectedRows
    }

    /// Revokes every session of a customer (in the caller's transaction).
    static func revokeAll(customer: String, account: String, on connection: isolated PostgresConnection) async throws -> Int {
        try await connection.query(
            """
            UPDATE customer_sessions SET revoked_at = now()
            WHERE account_id = \(account) AND customer_id = \(customer) AND revoked_at IS NULL AND expires_at > \(Clock.now)
            """
        ).affectedRows
    }

    static func session(_ row: PostgresRow) throws -> CustomerSession {
        var session = CustomerSession(
            id: try row["id"], clientSecret: nil,
            components: try StoredJSON.decode(CustomerSessionComponents.self, from: try row["components"]),
            created: try row["created"], customer: try row["customer_id"], expiresAt: try row["expires_at"]
        )
        session.customerSheetSettings = try row["sheet_settings_id"]
        return session
    }
}
