import Foundation
public import Postgres

/// Accounts and their API keys: creation, listing and revocation (the `purse accounts` and
/// `purse keys` commands, and the development account of the local default).
public struct AccountService: Sendable {
    private let pool: PostgresClient

    public init(pool: PostgresClient) { self.pool = pool }

    /// Creates an account with one secret and one publishable key.
    public func createAccount(name: String, isDevelopment: Bool = false) async throws -> CreatedAccount {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count) else {
            throw PurseError.invalidParameter("name", "An account name has 1 to 200 characters.")
        }
        let account = Account(id: ObjectID.make(.account), name: trimmed, created: Clock.now, isDevelopment: isDevelopment)
        let secret = Self.newKey(.secret, account: account.id)
        let publishable = Self.newKey(.publishable, account: account.id)
        try await pool.withTransaction { connection in
            try await connection.query(
                """
                INSERT INTO accounts (id, name, created, is_development)
                VALUES (\(account.id), \(account.name), \(account.created), \(account.isDevelopment))
                """
            )
            try await Self.insert(secret, on: connection)
            try await Self.insert(publishable, on: connection)
            try await SheetSettingsService.createDefault(account: account.id, in: PostgresDatabase.repositories(on: connection))
        }
        return CreatedAccount(account: account, secretKey: secret, publishableKey: publishable)
    }

    /// Makes sure the development account and its remembered keys exist (a new database, or
    /// the first start), so the local default shows the same keys on every start.
    public func ensureDevelopmentAccount(_ keys: DevelopmentKeys) async throws {
        try await pool.withTransaction { connection in
            try await connection.query(
                """
                INSERT INTO accounts (id, name, created, is_development)
                VALUES (\(keys.account), \(keys.name), \(keys.created), true)
                ON CONFLICT (id) DO NOTHING
                """
            )
            let repositories = PostgresDatabase.repositories(on: connection)
            if !(try await repositories.sheetSettings.hasDefault(account: keys.account)) {
                try await SheetSettingsService.createDefault(account: keys.account, in: repositories)
            }
            for (id, key, kind) in [(keys.secretKeyID, keys.secretKey, "secret"), (keys.publishableKeyID, keys.publishableKey, "publishable")] {
                let hash = SecretHash.sha256(key)
                try await connection.query(
                    """
                    INSERT INTO api_keys (id, account_id, kind, secret_hash, last4, created)
                    VALUES (\(id), \(keys.account), \(kind), \(hash), \(String(key.suffix(4))), \(keys.created))
                    ON CONFLICT DO NOTHING
                    """
                )
            }
        }
    }

    /// Keys for the development account: a new account, or new keys for the existing one when
    /// the ones shown before are lost (only their hashes are stored).
    public func issueDevelopmentKeys() async throws -> DevelopmentKeys {
        let rows = try await pool.query("SELECT id, name, created, is_development FROM accounts WHERE is_development")
        guard let existing = try rows.first.map(Self.account) else {
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
        try await pool.query("SELECT id, name, created, is_development FROM accounts ORDER BY created, id")
            .map(Self.account)
    }

    /// Adds a key to an account (to rotate: create, switch clients over, revoke the old one).
    public func createKey(account accountID: String, kind: APIKeyInfo.Kind) async throws -> CreatedKey {
        let key = Self.newKey(kind, account: accountID)
        try await pool.withTransaction { connection in
            let exists = try await connection.query("SELECT 1 FROM accounts WHERE id = \(accountID)")
            guard !exists.isEmpty else { throw PurseError.noSuch("account", accountID) }
            try await Self.insert(key, on: connection)
        }
        return key
    }

    public func listKeys(account accountID: String) async throws -> [APIKeyInfo] {
        try await pool.query(
            """
            SELECT id, account_id, kind, last4, created, revoked_at IS NOT NULL AS revoked
            FROM api_keys WHERE account_id = \(accountID) ORDER BY created, id
            """
        ).map(Self.keyInfo)
    }

    /// Revokes a key at once; requests with it fail from then on.
    @discardableResult
    public func revokeKey(id: String) async throws -> APIKeyInfo {
        let rows = try await pool.query(
            """
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = \(id)
            RETURNING id, account_id, kind, last4, created, true AS revoked
            """
        )
        guard let row = rows.first else { throw PurseError.noSuch("API key", id) }
        return try Self.keyInfo(row)
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

    private static func insert(_ key: CreatedKey, on connection: isolated PostgresConnection) async throws {
        let hash = SecretHash.sha256(key.key)
        try await connection.query(
            """
            INSERT INTO api_keys (id, account_id, kind, secret_hash, last4, created)
            VALUES (\(key.info.id), \(key.info.accountID), \(key.info.kind.rawValue), \(hash), \(key.info.last4), \(key.info.created))
            """
        )
    }

    private static func account(_ row: PostgresRow) throws -> Account {
        Account(
            id: try row["id"], name: try row["name"], created: try row["created"],
            isDevelopment: try row["is_development"]
        )
    }

    private static func keyInfo(_ row: PostgresRow) throws -> APIKeyInfo {
        APIKeyInfo(
            id: try row["id"], accountID: try row["account_id"],
            kind: APIKeyInfo.Kind(rawValue: try row["kind"]) ?? .secret,
            last4: try row["last4"], created: try row["created"], isRevoked: try row["revoked"]
        )
    }
}
