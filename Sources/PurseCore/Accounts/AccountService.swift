import Foundation

/// Accounts and their API keys: creation, listing and revocation (the `purse accounts` and
/// `purse keys` commands, and the development account of the local default).
public struct AccountService: Sendable {
    private let database: any Database

    public init(database: any Database) { self.database = database }

    /// Creates an account with one secret and one publishable key.
    public func createAccount(name: String, isDevelopment: Bool = false) async throws -> CreatedAccount {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count) else {
            throw PurseError.invalidParameter("name", "An account name has 1 to 200 characters.")
        }
        let account = Account(id: ObjectID.make(.account), name: trimmed, created: Clock.now, isDevelopment: isDevelopment)
        let secret = Self.newKey(.secret, account: account.id)
        let publishable = Self.newKey(.publishable, account: account.id)
        try await database.transaction { repositories in
            try await repositories.accounts.insert(account, ifMissing: false)
            try await Self.insert(secret, in: repositories)
            try await Self.insert(publishable, in: repositories)
            try await SheetSettingsService.createDefault(account: account.id, in: repositories)
        }
        return CreatedAccount(account: account, secretKey: secret, publishableKey: publishable)
    }

    /// Makes sure the development account and its remembered keys exist (a new database, or
    /// the first start), so the local default shows the same keys on every start.
    public func ensureDevelopmentAccount(_ keys: DevelopmentKeys) async throws {
        try await database.transaction { repositories in
            try await repositories.accounts.insert(
                Account(id: keys.account, name: keys.name, created: keys.created, isDevelopment: true), ifMissing: true
            )
            if !(try await repositories.sheetSettings.hasDefault(account: keys.account)) {
                try await SheetSettingsService.createDefault(account: keys.account, in: repositories)
            }
            for (id, key, kind) in [
                (keys.secretKeyID, keys.secretKey, APIKeyInfo.Kind.secret), (keys.publishableKeyID, keys.publishableKey, .publishable),
            ] {
                let info = APIKeyInfo(
                    id: id, accountID: keys.account, kind: kind, last4: String(key.suffix(4)), created: keys.created, isRevoked: false
                )
                try await repositories.accounts.insertKey(info, hash: SecretHash.sha256(key), ifMissing: true)
            }
        }
    }

    /// Keys for the development account: a new account, or new keys for the existing one when
    /// the ones shown before are lost (only their hashes are stored).
    public func issueDevelopmentKeys() async throws -> DevelopmentKeys {
        guard let existing = try await database.autocommit({ try await $0.accounts.development() }) else {
            let created = try await createAccount(name: "Development", isDevelopment: true)
            return DevelopmentKeys(created)
        }
        let secret = try await createKey(account: existing.id, kind: .secret)
        let publishable = try await createKey(account: existing.id, kind: .publishable)
        return DevelopmentKeys(
            CreatedAccount(account: existing, secretKey: secret, publishableKey: publishable)
        )
    }

    public func listAccounts() async throws -> [Account] {
        try await database.autocommit { try await $0.accounts.all() }
    }

    /// Adds a key to an account (to rotate: create, switch clients over, revoke the old one).
    public func createKey(account accountID: String, kind: APIKeyInfo.Kind) async throws -> CreatedKey {
        let key = Self.newKey(kind, account: accountID)
        try await database.transaction { repositories in
            guard try await repositories.accounts.find(accountID) != nil else { throw PurseError.noSuch("account", accountID) }
            try await Self.insert(key, in: repositories)
        }
        return key
    }

    public func listKeys(account accountID: String) async throws -> [APIKeyInfo] {
        try await database.autocommit { try await $0.accounts.keys(account: accountID) }
    }

    /// Revokes a key at once; requests with it fail from then on.
    @discardableResult
    public func revokeKey(id: String) async throws -> APIKeyInfo {
        guard let key = try await database.autocommit({ try await $0.accounts.revokeKey(id) }) else {
            throw PurseError.noSuch("API key", id)
        }
        return key
    }

    // MARK: - Internals

    static func newKey(_ kind: APIKeyInfo.Kind, account: String) -> CreatedKey {
        let key = kind.prefix + ObjectID.randomBase62(length: 48)
        let info = APIKeyInfo(
            id: ObjectID.make(.apiKey), accountID: account, kind: kind, last4: String(key.suffix(4)),
            created: Clock.now, isRevoked: false
        )
        return CreatedKey(info: info, key: key)
    }

    private static func insert(_ key: CreatedKey, in repositories: Repositories) async throws {
        try await repositories.accounts.insertKey(key.info, hash: SecretHash.sha256(key.key), ifMissing: false)
    }
}
