import Postgres
import PurseCore

/// ``MasterKeySealRepository`` on the `master_key_seals` table.
struct PostgresMasterKeySealRepository: MasterKeySealRepository {
    let connection: PostgresConnection

    func all() async throws -> [MasterKeySeal] {
        try await connection.query("SELECT key_id, sealed_root, created FROM master_key_seals ORDER BY created, key_id").map {
            MasterKeySeal(keyID: try $0["key_id"], sealedRoot: try $0["sealed_root"], created: try $0["created"])
        }
    }

    func insert(_ seal: MasterKeySeal) async throws -> Bool {
        try await connection.query(
            """
            INSERT INTO master_key_seals (key_id, sealed_root, created)
            VALUES (\(seal.keyID), \(seal.sealedRoot), \(seal.created))
            ON CONFLICT (key_id) DO NOTHING
            """
        ).affectedRows == 1
    }

    func deleteAll(except keyID: String) async throws -> [String] {
        try await connection.query("DELETE FROM master_key_seals WHERE key_id <> \(keyID) RETURNING key_id").map { try $0["key_id"] }
    }
}
