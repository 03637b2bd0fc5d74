import Postgres
import PurseCore

/// ``AccountRepository`` on the `accounts` and `api_keys` tables.
struct PostgresAccountRepository: AccountRepository {
    let connection: PostgresConnection

    func insert(_ account: Account, ifMissing: Bool) async throws {
        var query: PostgresQuery = """
            INSERT INTO accounts (id, name, created, is_development)
            VALUES (\(account.id), \(account.name), \(account.created), \(account.isDevelopment))
            """
        if ifMissing { query.append(" ON CONFLICT (id) DO NOTHING") }
        try await connection.query(query)
    }

    func find(_ id: String) async throws -> Account? {
        try await connection.query("SELECT id, name, created, is_development FROM accounts WHERE id = \(id)").first.map(Self.account)
    }

    func development() async throws -> Account? {
        try await connection.query("SELECT id, name, created, is_development FROM accounts WHERE is_development")
            .first.map(Self.account)
    }

    func all() async throws -> [Account] {
        try await connection.query("SELECT id, name, created, is_development FROM accounts ORDER BY created, id")
            .map(Self.account)
    }

    func insertKey(_ key: APIKeyInfo, hash: [UInt8], ifMissing: Bool) async throws {
        var query: PostgresQuery = """
            INSERT INTO api_keys (id, account_id, kind, secret_hash, last4, created)
            VALUES (\(key.id), \(key.accountID), \(key.kind.rawValue), \(hash), \(key.last4), \(key.created))
            """
        if ifMissing { query.append(" ON CONFLICT DO NOTHING") }
        try await connection.query(query)
    }

    func keys(account: String) async throws -> [APIKeyInfo] {
        try await connection.query(
            """
            SELECT id, account_id, kind, last4, created, revoked_at IS NOT NULL AS revoked
            FROM api_keys WHERE account_id = \(account) ORDER BY created, id
            """
        ).map(Self.keyInfo)
    }

    func revokeKey(_ id: String) async throws -> APIKeyInfo? {
        try await connection.query(
            """
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = \(id)
            RETURNING id, account_id, kind, last4, created, true AS revoked
            """
        ).first.map(Self.keyInfo)
    }

    func liveKey(hash: [UInt8]) async throws -> StoredAPIKey? {
        let rows = try await connection.query(
            """
            SELECT id, account_id, kind, secret_hash FROM api_keys
            WHERE secret_hash = \(hash) AND revoked_at IS NULL
            """
        )
        guard let row = rows.first else { return nil }
        return StoredAPIKey(
            id: try row["id"], accountID: try row["account_id"], kind: try Self.kind(row), hash: try row["secret_hash"]
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
            kind: try kind(row),
            last4: try row["last4"], created: try row["created"], isRevoked: try row["revoked"]
        )
    }

    /// The table allows only the two kinds; anything else would get the lesser rights.
    private static func kind(_ row: PostgresRow) throws -> APIKeyInfo.Kind {
        APIKeyInfo.Kind(rawValue: try row["kind"]) ?? .publishable
    }
}
