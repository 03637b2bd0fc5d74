import Postgres
import PurseCore

/// ``IdempotencyRepository`` on the `idempotency_keys` table, with a transaction-scoped advisory
/// lock per key.
struct PostgresIdempotencyRepository: IdempotencyRepository {
    let connection: PostgresConnection

    func lock(_ request: IdempotentRequest) async throws -> Bool {
        // The key's three parts hashed in a chain (each hash seeds the next), so no two keys share
        // a lock by how their parts are split; a 64-bit collision only makes a request wait its
        // turn with an unrelated one (a 409).
        try await connection.query(
            """
            SELECT pg_try_advisory_xact_lock(
                hashtextextended(\(request.key), hashtextextended(\(request.caller), hashtextextended(\(request.accountID), 0)))
            ) AS locked
            """
        )[0]["locked"]
    }

    func find(_ request: IdempotentRequest, retentionSeconds: Int) async throws -> StoredIdempotencyKey? {
        let rows = try await connection.query(
            """
            SELECT method, path, params_hash, status, response
            FROM idempotency_keys
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
              AND created_at >= now() - \(retentionSeconds) * interval '1 second'
            """
        )
        guard let row = rows.first else { return nil }
        return StoredIdempotencyKey(
            method: try row["method"], path: try row["path"], parametersHash: try row["params_hash"],
            status: try row["status"], sealedBody: try row["response"]
        )
    }

    /// A transactional logical message (``PostgresConnection/queueCommitMarker(_:)``) makes the
    /// commit wait for the standbys; it travels with the COMMIT.
    func awaitStandbysAtCommit() async throws {
        try connection.queueCommitMarker("idempotent replay")
    }

    func insert(_ request: IdempotentRequest, status: Int, sealedBody: [UInt8], retentionSeconds: Int) async throws {
        // Travels with the COMMIT. now() is the transaction's start, as in `find`: a key `find`
        // did not return is absent or expired, and the lock keeps it so.
        try connection.queryLater(
            """
            INSERT INTO idempotency_keys (account_id, key, caller, method, path, params_hash, status, response)
            VALUES (\(request.accountID), \(request.key), \(request.caller), \(request.method), \(request.path),
                    \(request.parametersHash), \(status), \(sealedBody))
            ON CONFLICT (account_id, caller, key) DO UPDATE
                SET method = EXCLUDED.method, path = EXCLUDED.path, params_hash = EXCLUDED.params_hash,
                    status = EXCLUDED.status, response = EXCLUDED.response, created_at = now()
                WHERE idempotency_keys.created_at < now() - \(retentionSeconds) * interval '1 second'
            """
        )
    }

    func prune(retentionSeconds: Int) async throws -> Int {
        try await connection.query(
            "DELETE FROM idempotency_keys WHERE created_at < now() - \(retentionSeconds) * interval '1 second'"
        ).affectedRows
    }
}
