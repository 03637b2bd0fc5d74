/// A key's answer as kept: what the request that ran with it was, and what it answered.
public struct StoredIdempotencyKey: Sendable, Equatable {
    public let method: String
    public let path: String
    public let parametersHash: [UInt8]
    public let status: Int
    /// The response body, sealed (``ResponseSealer``).
    public let sealedBody: [UInt8]

    public init(method: String, path: String, parametersHash: [UInt8], status: Int, sealedBody: [UInt8]) {
        self.method = method
        self.path = path
        self.parametersHash = parametersHash
        self.status = status
        self.sealedBody = sealedBody
    }
}

/// Idempotency keys, per account and caller, with the sealed answers they replay. Used inside
/// one enclosing transaction per request (``Database/enclosingTransaction(retryingConflicts:_:)``).
public protocol IdempotencyRepository {
    /// Takes the key for the rest of the transaction, without waiting: false while another
    /// transaction has it (a request with the key still runs). Released when the transaction
    /// ends, however it ends, so a key never outlives the request, or the server, holding it.
    func lock(_ request: IdempotentRequest) async throws -> Bool

    /// The answer kept for the key `request` uses, if one was kept within `retentionSeconds`.
    func find(_ request: IdempotentRequest, retentionSeconds: Int) async throws -> StoredIdempotencyKey?

    /// Makes the transaction's commit wait until every synchronous standby has what is committed
    /// so far, as a write's commit does, before a found answer is replayed. The request that kept
    /// it may have committed here only: a commit whose wait for the standby was cancelled (that
    /// request answered 503) is visible at once, and a failover would take it back.
    func awaitStandbysAtCommit() async throws

    /// Keeps the key's answer, replacing one older than `retentionSeconds`. Only under the
    /// key's ``lock(_:)``, after ``find(_:retentionSeconds:)`` found none.
    func insert(_ request: IdempotentRequest, status: Int, sealedBody: [UInt8], retentionSeconds: Int) async throws

    /// Deletes keys created more than `retentionSeconds` ago; returns how many.
    func prune(retentionSeconds: Int) async throws -> Int
}
