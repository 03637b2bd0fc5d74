public import Postgres
import PurseModels

/// Turns the key a request presents into a ``Credential``, or refuses it as Stripe does (401,
/// with the key masked).
///
/// Keys found are kept in memory by the SHA-256 of the key (``ChangeCaches/credentials``), so a
/// client presenting the same key again costs no database round trip; a revocation, a deleted
/// customer or a changed session empties the cache on every server as it commits. Unknown keys
/// are never cached, and an expiry is checked at every use.
public struct Authenticator: Sendable {
    private let pool: PostgresClient
    private let cache: ChangeCache<[UInt8], CachedCredential>

    public init(pool: PostgresClient, caches: ChangeCaches) {
        self.pool = pool
        self.cache = caches.credentials
    }

    public func authenticate(_ key: String) async throws -> Credential {
        let hash = SecretHash.sha256(key)
        if let cached = cache.value(for: hash) {
            return try Self.unexpired(cached, key: key)
        }
        let ticket = cache.ticket()
        let found: CachedCredential?
        if key.hasPrefix("sk_test_") || key.hasPrefix("pk_test_") {
            found = try await apiKey(hash: hash)
        } else if key.hasPrefix("ek_test_") {
            found = try await ephemeralKey(hash: hash)
        } else {
            found = nil
        }
        guard let found else { throw Self.invalidKey(key) }
        cache.store(found, for: hash, ticket: ticket)
        return try Self.unexpired(found, key: key)
    }

    private static func unexpired(_ cached: CachedCredential, key: String) throws -> Credential {
        if let expires = cached.expires, expires <= Clock.now { throw expiredKey(key) }
        return cached.credential
    }

    /// An ephemeral key, or the key a customer session hands out, of a live customer: refused
    /// once revoked, expired once past its expiry. One statement looks in both places.
    private func ephemeralKey(hash: [UInt8]) async throws -> CachedCredential? {
        let rows = try await pool.query(
            """
            SELECT 'ephemeral_key' AS source, k.id, k.account_id, k.customer_id, k.secret_hash AS hash, k.expires AS expires,
                   NULL::jsonb AS components, k.sheet_settings_id
            FROM ephemeral_keys k JOIN customers c ON c.id = k.customer_id
            WHERE k.secret_hash = \(hash) AND k.revoked_at IS NULL AND NOT c.deleted
            UNION ALL
            SELECT 'customer_session', s.id, s.account_id, s.customer_id, s.api_key_hash, s.expires_at, s.components,
                   s.sheet_settings_id
            FROM customer_sessions s JOIN customers c ON c.id = s.customer_id
            WHERE s.api_key_hash = \(hash) AND s.revoked_at IS NULL AND NOT c.deleted
            """
        )
        guard let row = rows.first, SecretHash.constantTimeEquals(try row["hash"], hash) else { return nil }
        let permissions = try StoredJSON.decodeIfPresent(CustomerSessionComponents.self, from: try row["components"])
            .map(SessionPermissions.init)
        let credential = Credential(
            kind: permissions == nil ? .ephemeralKey : .customerSession, accountID: try row["account_id"],
            customerID: try row["customer_id"], sourceID: try row["id"], session: permissions,
            sheetSettingsID: try row["sheet_settings_id"]
        )
        return CachedCredential(credential: credential, expires: try row["expires", as: Int.self])
    }

    private func apiKey(hash: [UInt8]) async throws -> CachedCredential? {
        let rows = try await pool.query(
            """
            SELECT id, account_id, kind, secret_hash FROM api_keys
            WHERE secret_hash = \(hash) AND revoked_at IS NULL
            """
        )
        guard let row = rows.first, SecretHash.constantTimeEquals(try row["secret_hash"], hash) else { return nil }
        let credential = Credential(
            kind: try row["kind", as: String.self] == "secret" ? .secret : .publishable,
            accountID: try row["account_id"],
            sourceID: try row["id"]
        )
        return CachedCredential(credential: credential, expires: nil)
    }

    static func invalidKey(_ key: String) -> PurseError {
        PurseError(.authentication, message: "Invalid API Key provided: \(SecretHash.masked(key))")
    }

    static func expiredKey(_ key: String) -> PurseError {
        PurseError(.authentication, code: "api_key_expired", message: "Expired API Key provided: \(SecretHash.masked(key))")
    }

    /// The message for a request without any key.
    public static let missingKey = PurseError(
        .authentication,
        message: "You did not provide an API key. You need to provide your API key in the Authorization header, "
            + "using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication "
            + "for details, or we can help at https://support.stripe.com/."
    )
}
