/// A key as stored, when a request finds it taken.
public struct StoredIdempotencyKey: Sendable, Equatable {
    /// The first request's response, sealed (``ResponseSealer``).
    public struct Response: Sendable, Equatable {
        public let status: Int
        public let sealedBody: [UInt8]

        public init(status: Int, sealedBody: [UInt8]) {
            self.status = status
            self.sealedBody = sealedBody
        }
    }

    public let method: String
    public let path: String
    public let parametersHash: [UInt8]
    /// The response, once the first request finished (nil while it runs).
    public let response: Response?
    /// Whether a running request's lease ran out (its server died).
    public let leaseExpired: Bool

    public init(method: String, path: String, parametersHash: [UInt8], response: Response?, leaseExpired: Bool) {
        self.method = method
        self.path = path
        self.parametersHash = parametersHash
        self.response = response
        self.leaseExpired = leaseExpired
    }
}

/// Idempotency keys, per account and caller, with the sealed responses they replay.
public protocol IdempotencyRepository: Sendable {
    /// Claims the key for `request` for `leaseSeconds`, in one statement: a key never used, or
    /// one created more than `retentionSeconds` ago. False when the key is taken.
    func claim(_ request: IdempotentRequest, leaseSeconds: Int, retentionSeconds: Int) async throws -> Bool

    /// The key `request` uses, as stored; nil when there is none.
    func find(_ request: IdempotentRequest) async throws -> StoredIdempotencyKey?

    /// Takes over a key still running whose lease ran out, for `leaseSeconds` more; false when
    /// it no longer is one (another took it over, or it finished or was released).
    func takeOver(_ request: IdempotentRequest, leaseSeconds: Int) async throws -> Bool

    /// Keeps the sealed response to a claimed key.
    func complete(_ request: IdempotentRequest, response: StoredIdempotencyKey.Response) async throws

    /// Forgets a claimed key that has no response.
    func release(_ request: IdempotentRequest) async throws

    /// Deletes keys created more than `retentionSeconds` ago; returns how many.
    func prune(retentionSeconds: Int) async throws -> Int
}
