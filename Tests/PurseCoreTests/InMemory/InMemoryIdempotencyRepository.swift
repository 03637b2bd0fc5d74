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
    enum State: Sendable { case inFlight, done }

    var method: String
    var path: String
    var parametersHash: [UInt8]
    var state: State
    var leaseExpiresAt: Int?
    var status: Int?
    var response: [UInt8]?
    var createdAt: Int
}

/// ``IdempotencyRepository`` on ``InMemoryDatabase``; `now()` is the database's clock.
struct InMemoryIdempotencyRepository: IdempotencyRepository {
    let database: InMemoryDatabase

    func claim(_ request: IdempotentRequest, leaseSeconds: Int, retentionSeconds: Int) async throws -> Bool {
        try await database.write { state in
            let id = IdempotencyKeyID(request)
            // ON CONFLICT DO UPDATE ... WHERE created_at < now() - retention: a key whose response expired is taken over.
            if let existing = state.idempotencyKeys[id], !(existing.createdAt < state.now - retentionSeconds) { return false }
            state.idempotencyKeys[id] = IdempotencyKeyRow(
                method: request.method, path: request.path, parametersHash: request.parametersHash, state: .inFlight,
                leaseExpiresAt: state.now + leaseSeconds, status: nil, response: nil, createdAt: state.now
            )
            return true
        }
    }

    func find(_ request: IdempotentRequest) async throws -> StoredIdempotencyKey? {
        await database.read { state in
            guard let row = state.idempotencyKeys[IdempotencyKeyID(request)] else { return nil }
            var response: StoredIdempotencyKey.Response?
            if row.state == .done, let status = row.status, let sealed = row.response {
                response = StoredIdempotencyKey.Response(status: status, sealedBody: sealed)
            }
            return StoredIdempotencyKey(
                method: row.method, path: row.path, parametersHash: row.parametersHash, response: response,
                // lease_expires_at < now(): NULL (a finished key) is not expired.
                leaseExpired: row.leaseExpiresAt.map { $0 < state.now } ?? false
            )
        }
    }

    func takeOver(_ request: IdempotentRequest, leaseSeconds: Int) async throws -> Bool {
        try await database.write { state in
            let id = IdempotencyKeyID(request)
            guard var row = state.idempotencyKeys[id], row.state == .inFlight, let lease = row.leaseExpiresAt, lease < state.now else {
                return false
            }
            row.leaseExpiresAt = state.now + leaseSeconds
            state.idempotencyKeys[id] = row
            return true
        }
    }

    func complete(_ request: IdempotentRequest, response: StoredIdempotencyKey.Response) async throws {
        try await database.write { state in
            let id = IdempotencyKeyID(request)
            guard var row = state.idempotencyKeys[id] else { return }
            row.state = .done
            row.status = response.status
            row.response = response.sealedBody
            row.leaseExpiresAt = nil
            state.idempotencyKeys[id] = row
        }
    }

    func release(_ request: IdempotentRequest) async throws {
        try await database.write { state in
            let id = IdempotencyKeyID(request)
            if state.idempotencyKeys[id]?.state == .inFlight { state.idempotencyKeys[id] = nil }
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
