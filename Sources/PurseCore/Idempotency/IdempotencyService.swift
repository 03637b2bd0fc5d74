/// Idempotency keys (spec §5): the first response to a key is kept for 24 hours, per account and
/// caller (each caller has a key space of its own: no error ever names another caller's request),
/// and replayed for retries; a reuse with other parameters or on another endpoint is
/// refused; a retry while the first request still runs gets 409.
public struct IdempotencyService: Sendable {
    private let database: any Database
    private let sealer: ResponseSealer
    private let pending = PendingSettlements()

    /// How long a response is kept and replayed.
    public static let retention: Duration = .seconds(24 * 3600)
    /// How long a request may hold its key before another may take it over (its server died).
    public static let lease: Duration = .seconds(60)
    public static let maximumKeyLength = 255

    public init(database: any Database, masterKey: MasterKey) {
        self.database = database
        self.sealer = ResponseSealer(masterKey: masterKey)
    }

    public enum Reservation: Sendable {
        /// Run the request, then ``complete`` or ``release`` the key.
        case proceed
        /// Answer with what the first request answered.
        case replay(status: Int, body: [UInt8])
    }

    /// Claims the key for this request, or says how to answer instead.
    public func reserve(_ request: IdempotentRequest) async throws -> Reservation {
        guard !request.key.isEmpty, request.key.count <= Self.maximumKeyLength else {
            throw PurseError(
                .invalidRequest, message: "Idempotency keys must have 1 to \(Self.maximumKeyLength) characters."
            )
        }
        // An earlier attempt's answer still waiting to be written goes first.
        let pendingID = PendingSettlements.id(of: request)
        if let settlement = pending.take(pendingID) {
            do {
                try await settlement(self)
            } catch {
                pending.put(settlement, for: pendingID)
                throw error
            }
        }
        let sealer = self.sealer
        return try await database.autocommit { repositories in
            // A key released between the claim's conflict and the read below is free again:
            // claim it anew rather than run without a reservation.
            for _ in 1...3 {
                if let reservation = try await Self.reserve(request, in: repositories.idempotency, sealer: sealer) { return reservation }
            }
            throw PurseError(
                .idempotencyInUse, code: "idempotency_key_in_use",
                message: "There is currently another in-progress request using this Idempotent Key: \(request.key)."
            )
        }
    }

    /// One try at ``reserve(_:)``: nil when the key vanished between the insert and the read.
    private static func reserve(
        _ request: IdempotentRequest, in keys: any IdempotencyRepository, sealer: ResponseSealer
    ) async throws -> Reservation? {
        if try await keys.claim(request, leaseSeconds: seconds(lease), retentionSeconds: seconds(retention)) { return .proceed }
        guard let stored = try await keys.find(request) else { return nil }
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
        if let response = stored.response {
            return .replay(status: response.status, body: try sealer.open(response.sealedBody, account: request.accountID))
        }
        // Still in flight: unless its lease ran out (its server died), it is someone else's.
        guard stored.leaseExpired else {
            throw PurseError(
                .idempotencyInUse, code: "idempotency_key_in_use",
                message: "There is currently another in-progress request using this Idempotent Key (that probably "
                    + "means you submitted twice, and the other request is still going through): \(request.key). "
                    + "Please try again later."
            )
        }
        guard try await keys.takeOver(request, leaseSeconds: seconds(lease)) else {
            throw PurseError(
                .idempotencyInUse, code: "idempotency_key_in_use",
                message: "There is currently another in-progress request using this Idempotent Key: \(request.key)."
            )
        }
        return .proceed
    }

    /// Keeps the response to a reserved key, sealed.
    public func complete(_ request: IdempotentRequest, status: Int, body: [UInt8]) async throws {
        let response = StoredIdempotencyKey.Response(status: status, sealedBody: try sealer.seal(body, account: request.accountID))
        try await database.autocommit { try await $0.idempotency.complete(request, response: response) }
    }

    /// Forgets a reserved key without a response (the request was refused before it ran), so a
    /// retry runs afresh.
    public func release(_ request: IdempotentRequest) async throws {
        try await database.autocommit { try await $0.idempotency.release(request) }
    }

    /// Settles a key whose answer is decided — `complete` or `release` — even while the database
    /// is unreachable: tried now, and if PostgreSQL cannot be reached, again every half second in
    /// the background, or at once when a retry of the request arrives first. A request that changed
    /// state must not look unanswered (a retry would do it twice), and one that changed nothing must
    /// not keep its key reserved (a retry would get 409 for the rest of the lease). The retries stop
    /// well within the lease, after which a retry may have taken the key over.
    public func settle(_ request: IdempotentRequest, _ settlement: @escaping @Sendable (IdempotencyService) async throws -> Void) async {
        do {
            try await settlement(self)
            return
        } catch DatabaseError.unavailable {
            let id = PendingSettlements.id(of: request)
            pending.put(settlement, for: id)
            let deadline = ContinuousClock.now + Self.lease - .seconds(20)
            Task { [pending] in
                while ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(500))
                    // Gone: a retry of the request settled it first.
                    guard let settlement = pending.take(id) else { return }
                    do {
                        try await settlement(self)
                        return
                    } catch DatabaseError.unavailable {
                        pending.put(settlement, for: id)
                    } catch {
                        return
                    }
                }
                _ = pending.take(id)
            }
        } catch {
            // Anything else would fail again; the lease frees the key.
        }
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
