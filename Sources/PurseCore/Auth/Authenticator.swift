import PurseModels

/// Turns the key a request presents into a ``Credential``, or refuses it as Stripe does (401,
/// with the key masked).
///
/// Keys found are kept in memory by the SHA-256 of the key (``ChangeCaches/credentials``), so a
/// client presenting the same key again costs no database round trip; a revocation, a deleted
/// customer, a changed session or a test clock that moved (the key of a customer on it holds the
/// clock's time) empties the cache on every server as it commits. A key found
/// unknown is remembered as such for ``unknownKeyMemory`` (``ChangeCaches/unknownKeys``), so
/// repeating it costs nothing either. An expiry is checked at every use.
public struct Authenticator: Sendable {
    private let database: any Database
    private let cache: ChangeCache<[UInt8], CachedCredential>
    private let unknownKeys: ChangeCache<[UInt8], ContinuousClock.Instant>

    /// How long a key found unknown is answered 401 without a look in the database.
    public static let unknownKeyMemory: Duration = .seconds(10)

    public init(database: any Database, caches: ChangeCaches) {
        self.database = database
        self.cache = caches.credentials
        self.unknownKeys = caches.unknownKeys
    }

    /// The credential of a key held in memory, or nil: whether `authenticate` would answer without
    /// the database.
    public func cached(_ key: String) -> Credential? {
        cache.value(for: SecretHash.sha256(key))?.credential
    }

    public func authenticate(_ key: String) async throws -> Credential {
        let hash = SecretHash.sha256(key)
        if let cached = cache.value(for: hash) {
            return try Self.unexpired(cached, key: key)
        }
        if let until = unknownKeys.value(for: hash), ContinuousClock.now < until { throw Self.invalidKey(key) }
        let ticket = cache.ticket()
        let unknownTicket = unknownKeys.ticket()
        let found: CachedCredential?
        if key.hasPrefix("sk_test_") || key.hasPrefix("pk_test_") {
            found = try await apiKey(hash: hash)
        } else if key.hasPrefix("ek_test_") {
            found = try await ephemeralKey(hash: hash)
        } else {
            found = nil
        }
        guard let found else {
            unknownKeys.store(ContinuousClock.now + Self.unknownKeyMemory, for: hash, ticket: unknownTicket)
            throw Self.invalidKey(key)
        }
        cache.store(found, for: hash, ticket: ticket)
        return try Self.unexpired(found, key: key)
    }

    private static func unexpired(_ cached: CachedCredential, key: String) throws -> Credential {
        // A key of a customer on a test clock expires by the clock's time.
        if let expires = cached.expires, expires <= cached.credential.now { throw expiredKey(key) }
        return cached.credential
    }

    /// An ephemeral key, or the key a customer session hands out, of a live customer: refused
    /// once revoked, expired once past its expiry. One statement looks in both places.
    private func ephemeralKey(hash: [UInt8]) async throws -> CachedCredential? {
        guard let found = try await database.autocommit({ try await $0.customerCredentials.credential(keyHash: hash) }),
            SecretHash.constantTimeEquals(found.hash, hash)
        else { return nil }
        let permissions = found.components.map(SessionPermissions.init)
        let credential = Credential(
            kind: permissions == nil ? .ephemeralKey : .customerSession, accountID: found.accountID,
            customerID: found.customerID, sourceID: found.id, session: permissions, sheetSettingsID: found.sheetSettingsID,
            clockTime: found.clockTime
        )
        return CachedCredential(credential: credential, expires: found.expires)
    }

    private func apiKey(hash: [UInt8]) async throws -> CachedCredential? {
        guard let found = try await database.autocommit({ try await $0.accounts.liveKey(hash: hash) }),
            SecretHash.constantTimeEquals(found.hash, hash)
        else { return nil }
        let credential = Credential(kind: found.kind == .secret ? .secret : .publishable, accountID: found.accountID, sourceID: found.id)
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
