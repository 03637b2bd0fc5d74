public import PurseModels

/// `POST /v1/ephemeral_keys` and `DELETE /v1/ephemeral_keys/{id}`: short-lived credentials for
/// one customer's device. The secret is shown once and stored only as a hash.
public struct EphemeralKeyService: Sendable {
    private let database: any Database
    /// Seconds a new key lives.
    private let lifetime: Int
    /// Emptied at a revocation, so it takes effect on this server before the response is sent
    /// (other servers hear of it through PostgreSQL).
    private let caches: ChangeCaches

    public init(database: any Database, lifetime: Int, caches: ChangeCaches) {
        self.database = database
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
        let inserted = try await database.transaction { repositories in
            let settings = try await SheetSettingsService.bindable(params.customerSheetSettings, account: caller.accountID, in: repositories)
            return try await repositories.customerCredentials.insertEphemeralKey(
                key, customer: params.customer, account: caller.accountID, secretHash: SecretHash.sha256(secret), sheetSettings: settings
            )
        }
        guard let created = inserted else { throw PurseError.noSuch("customer", params.customer, param: "customer") }
        // A customer on a test clock gets keys that live by the clock's time.
        var saved = key
        (saved.created, saved.expires) = (created, created + lifetime)
        return saved
    }

    /// Revokes a key at once; returns it (without its secret).
    public func revoke(_ id: String, by caller: Credential) async throws -> EphemeralKey {
        guard let key = try await database.autocommit({ try await $0.customerCredentials.revokeEphemeralKey(id, account: caller.accountID) })
        else { throw PurseError.noSuch("ephemeral key", id, param: "id") }
        caches.invalidate(topic: ChangeCaches.credentialsTopic)
        return key
    }

    /// Deletes keys that expired more than a day ago (by their test clock, for a customer on
    /// one); returns how many.
    public func sweepExpired() async throws -> Int {
        try await database.autocommit { try await $0.customerCredentials.deleteEphemeralKeys(expiredFor: 86_400, now: Clock.now) }
    }

    /// Revokes every key of a customer (in the caller's transaction): sign out everywhere.
    static func revokeAll(customer: String, account: String, in repositories: Repositories) async throws -> Int {
        try await repositories.customerCredentials.revokeEphemeralKeys(customer: customer, account: account, now: Clock.now)
    }
}
