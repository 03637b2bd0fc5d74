import Foundation
public import PurseModels

/// Customer sessions: created with the secret key, revoked with `DELETE`, presented by the app
/// (the client secret, with the publishable key) to `GET /v1/elements/sessions`, which hands
/// out the session's ephemeral key.
public struct CustomerSessionService: Sendable {
    private let database: any Database
    private let secrets: DerivedSecrets
    /// Seconds a new session lives.
    private let lifetime: Int
    /// Emptied at a revocation, so it takes effect on this server before the response is sent.
    private let caches: ChangeCaches

    public init(database: any Database, masterKey: MasterKey, lifetime: Int, caches: ChangeCaches) {
        self.database = database
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.lifetime = lifetime
        self.caches = caches
    }

    public func create(_ params: CustomerSessionCreateParameters, by caller: Credential) async throws -> CustomerSession {
        let components = try params.resolvedComponents()
        let now = Clock.now
        let clientSecret = "cuss_secret_" + ObjectID.randomBase62(length: 48)
        let session = CustomerSession(
            id: ObjectID.make(.customerSession), clientSecret: clientSecret, components: components, created: now,
            customer: params.customer, expiresAt: now + lifetime
        )
        let apiKey = secrets.customerSessionAPIKey(session.id)
        // As for ephemeral keys: one transaction, the settings and the customer locked, so a
        // concurrent delete of either cannot leave the session half-bound or alive.
        let (settings, inserted) = try await database.transaction { repositories in
            let settings = try await SheetSettingsService.bindable(params.customerSheetSettings, account: caller.accountID, in: repositories)
            var bound = session
            bound.customerSheetSettings = settings
            let inserted = try await repositories.customerCredentials.insertSession(
                bound, account: caller.accountID, clientSecretHash: SecretHash.sha256(clientSecret), apiKeyHash: SecretHash.sha256(apiKey)
            )
            return (settings, inserted)
        }
        guard let created = inserted else { throw PurseError.noSuch("customer", params.customer, param: "customer") }
        var saved = session
        saved.customerSheetSettings = settings
        // A customer on a test clock gets sessions that live by the clock's time.
        (saved.created, saved.expiresAt) = (created, created + lifetime)
        return saved
    }

    /// Revokes a session at once (its client secret and its key); returns it.
    public func revoke(_ id: String, by caller: Credential) async throws -> CustomerSession {
        guard let session = try await database.autocommit({ try await $0.customerCredentials.revokeSession(id, account: caller.accountID) })
        else { throw PurseError.noSuch("customer session", id, param: "id") }
        caches.invalidate(topic: ChangeCaches.credentialsTopic)
        return session
    }

    /// A live session of `account` by its client secret, with the session as the elements
    /// session sends it, the key it hands out included.
    ///
    /// Sessions found are kept in memory (``ChangeCaches/customerSessions``), so a sheet opened
    /// again costs the elements session one statement fewer; a revocation, a deleted customer or
    /// a changed session empties that cache as the credentials' does. Unknown, revoked and
    /// expired sessions are never cached, and the expiry is checked at every use.
    public func resolve(
        clientSecret: String, account: String
    ) async throws -> (session: CustomerSession, elementsView: JSONValue, clockTime: Int?) {
        let key = SecretKey(account: account, hash: SecretHash.sha256(clientSecret))
        let found: LiveSession
        if let cached = caches.customerSessions.value(for: key) {
            found = cached
        } else {
            found = try await live(key)
        }
        let session = found.session
        // A session of a customer on a test clock expires by the clock's time.
        guard session.expiresAt > found.clockTime ?? Clock.now else {
            throw PurseError(
                .invalidRequest, code: "customer_session_expired", message: "The customer session has expired.",
                param: "customer_session_client_secret"
            )
        }
        return (session, found.elementsView, found.clockTime)
    }

    /// A live session as found, with the time of its customer's test clock if it is on one.
    struct LiveSession: Sendable {
        let session: CustomerSession
        let clockTime: Int?
        /// The session as the elements session shows it, with its key: made once, as the cache
        /// keeps it, since deriving the key and encoding the components cost every sheet's opening.
        let elementsView: JSONValue

        init(session: CustomerSession, clockTime: Int?, apiKey: String) throws {
            self.session = session
            self.clockTime = clockTime
            let encoder = JSONValueEncoder()
            elementsView = [
                "id": .string(session.id),
                "livemode": false,
                "api_key": .string(apiKey),
                "api_key_expiry": .int(session.expiresAt),
                "customer": .string(session.customer),
                "components": [
                    "mobile_payment_element": try encoder.encode(session.components.mobilePaymentElement),
                    "customer_sheet": try encoder.encode(session.components.customerSheet),
                ],
            ]
        }
    }

    /// How the cache finds a session: its account and the SHA-256 of its client secret.
    struct SecretKey: Hashable, Sendable {
        let account: String
        let hash: [UInt8]
    }

    /// The session `key` names from the database, unless it is revoked or its customer deleted.
    private func live(_ key: SecretKey) async throws -> LiveSession {
        let ticket = caches.customerSessions.ticket()
        let found = try await database.autocommit { try await $0.customerCredentials.session(clientSecretHash: key.hash, account: key.account) }
        guard let found, SecretHash.constantTimeEquals(found.clientSecretHash, key.hash), !found.isRevoked else {
            throw PurseError(
                .invalidRequest, code: "resource_missing", message: "No such customer session: the client secret is unknown or revoked.",
                param: "customer_session_client_secret"
            )
        }
        let live = try LiveSession(
            session: found.session, clockTime: found.clockTime, apiKey: secrets.customerSessionAPIKey(found.session.id)
        )
        if live.session.expiresAt > found.clockTime ?? Clock.now { caches.customerSessions.store(live, for: key, ticket: ticket) }
        return live
    }

    /// Whether `clientSecret` is the client secret of `account`'s session `id`.
    public func isClientSecret(_ clientSecret: String, of id: String, account: String) async throws -> Bool {
        guard let hash = try await database.autocommit({ try await $0.customerCredentials.sessionClientSecretHash(id, account: account) })
        else { return false }
        return SecretHash.constantTimeEquals(hash, SecretHash.sha256(clientSecret))
    }

    /// Deletes sessions that expired more than a day ago (by their test clock, for a customer on
    /// one); returns how many.
    public func sweepExpired() async throws -> Int {
        try await database.autocommit { try await $0.customerCredentials.deleteSessions(expiredFor: 86_400, now: Clock.now) }
    }

    /// Revokes every session of a customer (in the caller's transaction).
    static func revokeAll(customer: String, account: String, in repositories: Repositories) async throws -> Int {
        try await repositories.customerCredentials.revokeSessions(customer: customer, account: account, now: Clock.now)
    }
}
