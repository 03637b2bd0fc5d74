@testable import PurseCore

/// The primary key of `idempotency_keys`.
struct IdempotencyKeyID: Hashable, Sendable {
    let account: String
    let caller: String
    let key: String

    init(_ request: IdempotentRequest) {
        account = request.accountID
        caller = request.caller
        key = request.key
    }
}

/// A row of `idempotency_keys`.
struct IdempotencyKeyRow: Sendable {
    var method: String
    var path: String
    var parametersHash: [UInt8]
    var status: Int
    var response: [UInt8]
    var createdAt: Int
}

/// ``IdempotencyRepository`` on ``InMemoryDatabase``; `now()` is the database's clock. Its units
/// of work run one at a time, so the lock is always free to the one running.
struct InMemoryIdempotencyRepository: IdempotencyRepository {
    let database: InMemoryDatabase

    func lock(_ request: IdempotentRequest) async throws -> Bool {
        true
    }

    /// Nothing to wait for: the in-memory database has no standbys.
    func awaitStandbysAtCommit() async throws {}

    func find(_ request: IdempotentRequest, retentionSeconds: Int) async throws -> StoredIdempotencyKey? {
        await database.read { state in
            guard let row = state.idempotencyKeys[IdempotencyKeyID(request)], row.createdAt >= state.now - retentionSeconds else {
                return nil
            }
            return StoredIdempotencyKey(
                method: row.method, path: row.path, parametersHash: row.parametersHash, status: row.status, sealedBody: row.response
            )
        }
    }

    func insert(_ request: IdempotentRequest, status: Int, sealedBody: [UInt8], retentionSeconds: Int) async throws {
        try await database.write { state in
            let id = IdempotencyKeyID(request)
            // ON CONFLICT DO UPDATE ... WHERE created_at < now() - retention: an expired answer is replaced.
            if let existing = state.idempotencyKeys[id], existing.createdAt >= state.now - retentionSeconds { return }
            state.idempotencyKeys[id] = IdempotencyKeyRow(
                method: request.method, path: request.path, parametersHash: request.parametersHash, status: status,
                response: sealedBody, createdAt: state.now
            )
        }
    }

    func prune(retentionSeconds: Int) async throws -> Int {
        try await database.write { state in
            let cutoff = state.now - retentionSeconds
            let ids = state.idempotencyKeys.filter { $0.value.createdAt < cutoff }.map(\.key)
            for id in ids { state.idempotencyKeys[id] = nil }
            return ids.count
        }
    }
}
