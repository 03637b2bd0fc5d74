/// An account: the owner of every customer, key, intent, setting and event.
public struct Account: Sendable, Hashable, Codable {
    public let id: String
    public let name: String
    public let created: Int
    public let isDevelopment: Bool

    /// For the repositories, which read accounts back from storage.
    package init(id: String, name: String, created: Int, isDevelopment: Bool) {
        self.id = id
        self.name = name
        self.created = created
        self.isDevelopment = isDevelopment
    }
}

/// An API key as listed: never the key itself, only what tells keys apart.
public struct APIKeyInfo: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case secret
        case publishable

        /// The prefix keys of this kind start with.
        public var prefix: String { self == .secret ? "sk_test_" : "pk_test_" }
    }

    public let id: String
    public let accountID: String
    public let kind: Kind
    public let last4: String
    public let created: Int
    public let isRevoked: Bool

    /// For the repositories, which read keys back from storage.
    package init(id: String, accountID: String, kind: Kind, last4: String, created: Int, isRevoked: Bool) {
        self.id = id
        self.accountID = accountID
        self.kind = kind
        self.last4 = last4
        self.created = created
        self.isRevoked = isRevoked
    }
}

/// A key just made: the only moment Purse holds it in clear.
public struct CreatedKey: Sendable {
    public let info: APIKeyInfo
    public let key: String
}

/// A new account with its first pair of keys.
public struct CreatedAccount: Sendable {
    public let account: Account
    public let secretKey: CreatedKey
    public let publishableKey: CreatedKey
}

/// The development account's keys as the local default keeps them in its data folder.
public struct DevelopmentKeys: Codable, Sendable, Equatable {
    public let account: String
    public let name: String
    public let created: Int
    public let secretKeyID: String
    public let secretKey: String
    public let publishableKeyID: String
    public let publishableKey: String

    init(_ created: CreatedAccount) {
        account = created.account.id
        name = created.account.name
        self.created = created.account.created
        secretKeyID = created.secretKey.info.id
        secretKey = created.secretKey.key
        publishableKeyID = created.publishableKey.info.id
        publishableKey = created.publishableKey.key
    }

    enum CodingKeys: String, CodingKey {
        case account, name, created
        case secretKeyID = "secret_key_id"
        case secretKey = "secret_key"
        case publishableKeyID = "publishable_key_id"
        case publishableKey = "publishable_key"
    }
}
