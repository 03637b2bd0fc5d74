/// Idempotency keys (spec §5): a request with a key runs at most once, and its answer is kept
/// for 24 hours, per account and caller (each caller has a key space of its own: no error ever
/// names another caller's request), and replayed for retries; a reuse with other parameters or on
/// another endpoint is refused; a retry while the first request still runs gets 409.
///
/// Exactly once, under any fault: the key is locked, the request's effects are made and its
/// answer is kept in one transaction (``Database/enclosingTransaction(retryingConflicts:_:)``).
/// Either all of it committed, and a retry replays the answer, or none of it did, and a retry
/// runs afresh; there is no third state to wait out. A lost acknowledgement of the commit, a
/// server killed at any point and a failover all leave one of the two. A replay is an
/// acknowledgement too, so it waits for the synchronous standbys as the commit it replays did.
public struct IdempotencyService: Sendable {
    private let database: any Database
    private let sealer: ResponseSealer

    /// How long an answer is kept and replayed.
    public static let retention: Duration = .seconds(24 * 3600)
    public static let maximumKeyLength = 255
    /// Conflicts with other transactions (a deadlock, say) run the request again this many times.
    static let conflictRetries = 2

    public init(database: any Database, masterKey: MasterKey) {
        self.database = database
        self.sealer = ResponseSealer(masterKey: masterKey)
    }

    /// What a request answered, as kept for its key.
    public struct Answer: Sendable {
        public let status: Int
        public let body: [UInt8]

        public init(status: Int, body: [UInt8]) {
            self.status = status
            self.body = body
        }
    }

    public enum Outcome<Value: Sendable>: Sendable {
        /// The request ran now and `value` is its result; its answer was kept with its effects.
        case ran(Value)
        /// A retry: the answer of the request that ran with the key.
        case replayed(Answer)
    }

    /// Runs `work` once for the key, in one transaction with the key's answer, or replays the
    /// answer kept for it. `work` returns its result and the answer to keep; when it throws,
    /// nothing it did is kept and neither is the key, so a retry runs afresh. `work` runs again
    /// (whole) when the database gives up on it over a conflict with another transaction.
    public func perform<Value: Sendable>(
        _ request: IdempotentRequest, _ work: @Sendable () async throws -> (Value, answer: Answer)
    ) async throws -> Outcome<Value> {
        guard !request.key.isEmpty, request.key.count <= Self.maximumKeyLength else {
            throw PurseError(
                .invalidRequest, message: "Idempotency keys must have 1 to \(Self.maximumKeyLength) characters."
            )
        }
        let (sealer, retention) = (self.sealer, Self.seconds(Self.retention))
        return try await database.enclosingTransaction(retryingConflicts: Self.conflictRetries) { repositories in
            let keys = repositories.idempotency
            guard try await keys.lock(request) else { throw Self.inUse(request) }
            if let stored = try await keys.find(request, retentionSeconds: retention) {
                try Self.check(request, matches: stored)
                try await keys.awaitStandbysAtCommit()
                return .replayed(Answer(status: stored.status, body: try sealer.open(stored.sealedBody, account: request.accountID)))
            }
            let (value, answer) = try await work()
            let sealed = try sealer.seal(answer.body, account: request.accountID)
            try await keys.insert(request, status: answer.status, sealedBody: sealed, retentionSeconds: retention)
            return .ran(value)
        }
    }

    /// Refuses a key reused with another endpoint or other parameters.
    private static func check(_ request: IdempotentRequest, matches stored: StoredIdempotencyKey) throws {
        guard stored.path == request.path, stored.method == request.method else {
            throw PurseError(
                .idempotency,
                message: "Keys for idempotent requests can only be used for the same endpoint they were first used for "
                    + "('\(stored.path)' vs '\(request.path)'). Try using a key other than '\(request.key)' if you meant "
                    + "to execute a different request."
            )
        }
        guard SecretHash.constantTimeEquals(stored.parametersHash, request.parametersHash) else {
            throw PurseError(
                .idempotency,
                message: "Keys for idempotent requests can only be used with the same parameters they were first "
                    + "used with. Try using a key other than '\(request.key)' if you meant to execute a different request."
            )
        }
    }

    private static func inUse(_ request: IdempotentRequest) -> PurseError {
        PurseError(
            .idempotencyInUse, code: "idempotency_key_in_use",
            message: "There is currently another in-progress request using this Idempotent Key (that probably "
                + "means you submitted twice, and the other request is still going through): \(request.key). "
                + "Please try again later."
        )
    }

    /// Deletes keys older than the retention period; returns how many.
    public func prune() async throws -> Int {
        let retention = Self.seconds(Self.retention)
        return try await database.autocommit { try await $0.idempotency.prune(retentionSeconds: retention) }
    }

    private static func seconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds)
    }
}
