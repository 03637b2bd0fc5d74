/// An API key as the authenticator finds it by its hash.
public struct StoredAPIKey: Sendable, Equatable {
    public let id: String
    public let accountID: String
    public let kind: APIKeyInfo.Kind
    /// The SHA-256 of the key, compared again in constant time.
    public let hash: [UInt8]

    public init(id: String, accountID: String, kind: APIKeyInfo.Kind, hash: [UInt8]) {
        self.id = id
        self.accountID = accountID
        self.kind = kind
        self.hash = hash
    }
}

/// Accounts and their API keys (only the SHA-256 of each key is stored).
public protocol AccountRepository {
    /// Stores an account; with `ifMissing`, an account already stored under its id is left as it is.
    func insert(_ account: Account, ifMissing: Bool) async throws

    /// The account with this id, if there is one.
    func find(_ id: String) async throws -> Account?

    /// The development account of the local default, if there is one (there is at most one).
    func development() async throws -> Account?

    /// Every account, oldest first.
    func all() async throws -> [Account]

    /// Stores a key by the SHA-256 of its secret; with `ifMissing`, a key already stored (by its
    /// id or its hash) is left as it is.
    func insertKey(_ key: APIKeyInfo, hash: [UInt8], ifMissing: Bool) async throws

    /// An account's keys, oldest first.
    func keys(account: String) async throws -> [APIKeyInfo]

    /// Revokes a key (again, harmlessly: the first revocation's time stays); the key, or nil
    /// when there is none with that id.
    func revokeKey(_ id: String) async throws -> APIKeyInfo?

    /// The unrevoked key with this hash.
    func liveKey(hash: [UInt8]) async throws -> StoredAPIKey?
}
