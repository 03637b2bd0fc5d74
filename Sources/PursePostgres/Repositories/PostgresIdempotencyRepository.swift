import Postgres
import PurseCore

/// ``IdempotencyRepository`` on the `idempotency_keys` table.
struct PostgresIdempotencyRepository: IdempotencyRepository {
    let connection: PostgresConnection

    func claim(_ request: IdempotentRequest, leaseSeconds: Int, retentionSeconds: Int) async throws -> Bool {
        let claimed = try await connection.query(
            """
            INSERT INTO idempotency_keys (account_id, key, caller, method, path, params_hash, state, lease_expires_at)
            VALUES (\(request.accountID), \(request.key), \(request.caller), \(request.method), \(request.path),
                    \(request.parametersHash), 'in_flight', now() + \(leaseSeconds) * interval '1 second')
            ON CONFLICT (account_id, caller, key) DO UPDATE
                SET method = EXCLUDED.method, path = EXCLUDED.path,
                    params_hash = EXCLUDED.params_hash, state = 'in_flight', lease_expires_at = EXCLUDED.lease_expires_at,
                    status = NULL, response = NULL, created_at = now()
                -- Take over a key whose response has expired.
                WHERE idempotency_keys.created_at < now() - \(retentionSeconds) * interval '1 second'
            RETURNING 1
            """
        )
        return !claimed.isEmpty
    }

    func find(_ request: IdempotentRequest) async throws -> StoredIdempotencyKey? {
        let rows = try await connection.query(
            """
            SELECT method, path, params_hash, state, lease_expires_at < now() AS lease_expired, status, response
            FROM idempotency_keys
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
            """
        )
        guard let row = rows.first else { return nil }
        var response: StoredIdempotencyKey.Response?
        if try row["state", as: String.self] == "done", let status: Int = try row["status"], let sealed: [UInt8] = try row["response"] {
            response = StoredIdempotencyKey.Response(status: status, sealedBody: sealed)
        }
        return StoredIdempotencyKey(
            method: try row["method"], path: try row["path"], parametersHash: try row["params_hash"], response: response,
            leaseExpired: try row["lease_expired", as: Bool?.self] == true
        )
    }

    func takeOver(_ request: IdempotentRequest, leaseSeconds: Int) async throws -> Bool {
        let takenOver = try await connection.query(
            """
            UPDATE idempotency_keys SET lease_expires_at = now() + \(leaseSeconds) * interval '1 second'
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
              AND state = 'in_flight' AND lease_expires_at < now()
            RETURNING 1
            """
        )
        return !takenOver.isEmpty
    }

    func complete(_ request: IdempotentRequest, response: StoredIdempotencyKey.Response) async throws {
        try await connection.query(
            """
            UPDATE idempotency_keys SET state = 'done', status = \(response.status), response = \(response.sealedBody), lease_expires_at = NULL
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
            """
        )
    }

    func release(_ request: IdempotentRequest) async throws {
        try await connection.query(
            """
            DELETE FROM idempotency_keys
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
              AND state = 'in_flight'
            """
        )
    }

    func prune(retentionSeconds: Int) async throws -> Int {
        try await connection.query(
            "DELETE FROM idempotency_keys WHERE created_at < now() - \(retentionSeconds) * interval '1 second'"
        ).affectedRows
    }
}
