public import PurseModels

/// An ephemeral key, or the key a customer session hands out, as the authenticator finds it by
/// its hash.
public struct StoredCustomerCredential: Sendable, Equatable {
    /// The ephemeral key's or the session's id.
    public let id: String
    public let accountID: String
    public let customerID: String
    /// The SHA-256 of the key, compared again in constant time.
    public let hash: [UInt8]
    public let expires: Int
    /// A session's components (what its key may do); nil for an ephemeral key.
    public let components: CustomerSessionComponents?
    public let sheetSettingsID: String?
    /// The time of the customer's test clock, when it is on one.
    public let clockTime: Int?

    public init(
        id: String, accountID: String, customerID: String, hash: [UInt8], expires: Int, components: CustomerSessionComponents?,
        sheetSettingsID: String?, clockTime: Int? = nil
    ) {
        self.id = id
        self.accountID = accountID
        self.customerID = customerID
        self.hash = hash
        self.expires = expires
        self.components = components
        self.sheetSettingsID = sheetSettingsID
        self.clockTime = clockTime
    }
}

/// A customer session as found by its client secret.
public struct StoredCustomerSession: Sendable, Equatable {
    public var session: CustomerSession
    /// The SHA-256 of its client secret, compared again in constant time.
    public var clientSecretHash: [UInt8]
    public var isRevoked: Bool
    /// The time of the customer's test clock, when it is on one.
    public var clockTime: Int?

    public init(session: CustomerSession, clientSecretHash: [UInt8], isRevoked: Bool, clockTime: Int? = nil) {
        self.session = session
        self.clientSecretHash = clientSecretHash
        self.isRevoked = isRevoked
        self.clockTime = clockTime
    }
}

/// The credentials of one customer's device: ephemeral keys and customer sessions. Their secrets
/// are stored as SHA-256 hashes only.
public protocol CustomerCredentialRepository {
    /// Stores a key for `customer` if it is a live customer of `account`; nil when it is not.
    /// The customer's row stays locked (shared) for the rest of the transaction, so a deletion
    /// of the customer waits for the key and then revokes it.
    ///
    /// Returns the key's creation time as stored: `key.created`, or, for a customer on a test
    /// clock, the clock's time; its expiry is that time plus the key's lifetime.
    func insertEphemeralKey(
        _ key: EphemeralKey, customer: String, account: String, secretHash: [UInt8], sheetSettings: String?
    ) async throws -> Int?

    /// Revokes a key (again, harmlessly: the first revocation's time stays); the key without its
    /// secret, or nil when `account` has none with that id.
    func revokeEphemeralKey(_ id: String, account: String) async throws -> EphemeralKey?

    /// Revokes every key of a customer not yet revoked and still unexpired at `now`; returns how many.
    func revokeEphemeralKeys(customer: String, account: String, now: Int) async throws -> Int

    /// Deletes keys that expired more than `grace` seconds ago by their customer's time: its test
    /// clock's while the clock exists, else `now`. Returns how many.
    func deleteEphemeralKeys(expiredFor grace: Int, now: Int) async throws -> Int

    /// Stores a session (with its ``CustomerSession/customerSheetSettings``) as
    /// ``insertEphemeralKey(_:customer:account:secretHash:sheetSettings:)`` stores a key.
    func insertSession(_ session: CustomerSession, account: String, clientSecretHash: [UInt8], apiKeyHash: [UInt8]) async throws -> Int?

    /// Revokes a session (again, harmlessly); the session without its client secret, or nil when
    /// `account` has none with that id.
    func revokeSession(_ id: String, account: String) async throws -> CustomerSession?

    /// The session of `account` with this client secret, unless its customer was deleted.
    func session(clientSecretHash: [UInt8], account: String) async throws -> StoredCustomerSession?

    /// The SHA-256 of the client secret of `account`'s session `id`, or nil when it has no such session.
    func sessionClientSecretHash(_ id: String, account: String) async throws -> [UInt8]?

    /// Revokes every session of a customer not yet revoked and still unexpired at `now`; returns how many.
    func revokeSessions(customer: String, account: String, now: Int) async throws -> Int

    /// Deletes sessions as ``deleteEphemeralKeys(expiredFor:now:)`` deletes keys.
    func deleteSessions(expiredFor grace: Int, now: Int) async throws -> Int

    /// The unrevoked ephemeral key, or session's key, with this hash, of a live customer; in one
    /// statement, since authentication asks it with a key of either kind.
    func credential(keyHash: [UInt8]) async throws -> StoredCustomerCredential?
}
