@testable import PurseCore

/// A row of `accounts`.
struct AccountRow: Sendable {
    var account: Account
}

/// A row of `api_keys`: the key without its secret, the secret's SHA-256, and when it was revoked.
struct APIKeyRow: Sendable {
    var info: APIKeyInfo
    var hash: [UInt8]
    var revokedAt: Int?

    /// The key as a read builds it: revoked when `revoked_at` is set.
    var stored: APIKeyInfo {
        APIKeyInfo(
            id: info.id, accountID: info.accountID, kind: info.kind, last4: info.last4, created: info.created, isRevoked: revokedAt != nil
        )
    }
}

/// ``AccountRepository`` on ``InMemoryDatabase``. As in the other in-memory repositories, the
/// foreign keys to `accounts` are not checked (the harness's account has no row).
struct InMemoryAccountRepository: AccountRepository {
    let database: InMemoryDatabase

    func insert(_ account: Account, ifMissing: Bool) async throws {
        try await database.write { state in
            guard (1...200).contains(account.name.count) else { throw InMemoryDatabaseError.constraint("accounts_name_check") }
            if state.accounts[account.id] != nil {
                // ON CONFLICT (id) DO NOTHING
                if ifMissing { return }
                throw InMemoryDatabaseError.constraint("accounts_pkey")
            }
            // accounts_one_development: not covered by ON CONFLICT (id).
            if account.isDevelopment, state.accounts.values.contains(where: \.account.isDevelopment) {
                throw InMemoryDatabaseError.constraint("accounts_one_development")
            }
            state.accounts[account.id] = AccountRow(account: account)
        }
    }

    func find(_ id: String) async throws -> Account? {
        await database.read { $0.accounts[id]?.account }
    }

    func development() async throws -> Account? {
        await database.read { state in state.accounts.values.first { $0.account.isDevelopment }?.account }
    }

    func all() async throws -> [Account] {
        await database.read { state in
            state.accounts.values.map(\.account).sorted { ($0.created, $0.id) < ($1.created, $1.id) }
        }
    }

    func insertKey(_ key: APIKeyInfo, hash: [UInt8], ifMissing: Bool) async throws {
        try await database.write { state in
            guard hash.count == 32 else { throw InMemoryDatabaseError.constraint("api_keys_secret_hash_check") }
            // ON CONFLICT DO NOTHING: on the id or on the hash.
            if state.apiKeys[key.id] != nil {
                if ifMissing { return }
                throw InMemoryDatabaseError.constraint("api_keys_pkey")
            }
            if state.apiKeys.values.contains(where: { $0.hash == hash }) {
                if ifMissing { return }
                throw InMemoryDatabaseError.constraint("api_keys_secret_hash_key")
            }
            state.apiKeys[key.id] = APIKeyRow(info: key, hash: hash, revokedAt: nil)
        }
    }

    func keys(account: String) async throws -> [APIKeyInfo] {
        await database.read { state in
            state.apiKeys.values.filter { $0.info.accountID == account }.map(\.stored)
                .sorted { ($0.created, $0.id) < ($1.created, $1.id) }
        }
    }

    func revokeKey(_ id: String) async throws -> APIKeyInfo? {
        try await database.write { state in
            guard var row = state.apiKeys[id] else { return nil }
            // coalesce(revoked_at, now()): revoking again keeps the first time.
            row.revokedAt = row.revokedAt ?? state.now
            state.apiKeys[id] = row
            return row.stored
        }
    }

    func liveKey(hash: [UInt8]) async throws -> StoredAPIKey? {
        await database.read { state in
            guard let row = state.apiKeys.values.first(where: { $0.hash == hash && $0.revokedAt == nil }) else { return nil }
            return StoredAPIKey(id: row.info.id, accountID: row.info.accountID, kind: row.info.kind, hash: row.hash)
        }
    }
}
