import Crypto
public import Postgres

/// Idempotency keys (spec §5): the first response to a key is kept for 24 hours, per account and
/// caller (each caller has a key space of its own: no error ever names another caller's request),
/// and replayed for retries; a reuse with other parameters or on another endpoint is
/// refused; a retry while the first request still runs gets 409.
public struct IdempotencyStore: Sendable {
    private let pool: PostgresClient
    private let sealer: ResponseSealer
    private let pending = PendingSettlements()

    /// How long a response is kept and replayed.
    public static let retention: Duration = .seconds(24 * 3600)
    /// How long a request may hold its key before another may take it over (its server died).
    public static let lease: Duration = .seconds(60)
    public static let maximumKeyLength = 255

    public init(pool: PostgresClient, masterKey: MasterKey) {
        self.pool = pool
        self.sealer = ResponseSealer(masterKey: masterKey)
    }

    /// What a request with a key identifies.
    public struct Request: Sendable {
        public let accountID: String
        public let caller: String
        public let key: String
        public let method: String
        public let path: String
        /// SHA-256 of the parameters as sent (content type and body).
        public let parametersHash: [UInt8]

        public init(accountID: String, caller: String, key: String, method: String, path: String, parameters: [UInt8]) {
            self.accountID = accountID
            self.caller = caller
            self.key = key
            self.method = method
            self.path = path
            self.parametersHash = Array(SHA256.hash(data: parameters))
        }
    }

    public enum Reservation: Sendable {
        /// Run the request, then ``complete`` or ``release`` the key.
        case proceed
        /// Answer with what the first request answered.
        case replay(status: Int, body: [UInt8])
    }

    /// Claims the key for this request, or says how to answer instead.
    public func reserve(_ request: Request) async throws -> Reservation {
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
        return try await pool.withConnection { connection in
            // A key released between this insert's conflict and the read below is free again:
            // claim it anew rather than run without a reservation.
            for _ in 1...3 {
                if let reservation = try await Self.reserve(request, on: connection, sealer: sealer) { return reservation }
            }
            throw PurseError(
                .idempotencyInUse, code: "idempotency_key_in_use",
                message: "There is currently another in-progress request using this Idempotent Key: \(request.key)."
            )
        }
    }

    /// One try at ``reserve(_:)``: nil when the key vanished between the insert and the read.
    private static func reserve(_ request: Request, on connection: isolated PostgresConnection, sealer: ResponseSealer) async throws -> Reservation? {
        let claimed = try await connection.query(
            """
            INSERT INTO idempotency_keys (account_id, key, caller, method, path, params_hash, state, lease_expires_at)
            VALUES (\(request.accountID), \(request.key), \(request.caller), \(request.method), \(request.path),
                    \(request.parametersHash), 'in_flight', now() + \(Self.seconds(Self.lease)) * interval '1 second')
            ON CONFLICT (account_id, caller, key) DO UPDATE
                SET method = EXCLUDED.method, path = EXCLUDED.path,
                    params_hash = EXCLUDED.params_hash, state = 'in_flight', lease_expires_at = EXCLUDED.lease_expires_at,
                    status = NULL, response = NULL, created_at = now()
                -- Take over a key whose response has expired.
                WHERE idempotency_keys.created_at < now() - \(Self.seconds(Self.retention)) * interval '1 second'
            RETURNING 1
            """
        )
        if !claimed.isEmpty { return .proceed }
        let rows = try await connection.query(
            """
            SELECT method, path, params_hash, state, lease_expires_at < now() AS lease_expired, status, response
            FROM idempotency_keys
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
            """
        )
        guard let row = rows.first else { return nil }
        let path: String = try row["path"]
        guard path == request.path, try row["method", as: String.self] == request.method else {
            throw PurseError(
                .idempotency,
                message: "Keys for idempotent requests can only be used for the same endpoint they were first used for "
                    + "('\(path)' vs '\(request.path)'). Try using a key other than '\(request.key)' if you meant "
                    + "to execute a different request."
            )
        }
        guard SecretHash.constantTimeEquals(try row["params_hash"], request.parametersHash) else {
            throw PurseError(
                .idempotency,
                message: "Keys for idempotent requests can only be used with the same parameters they were first "
                    + "used with. Try using a key other than '\(request.key)' if you meant to execute a different request."
            )
        }
        if try row["state", as: String.self] == "done", let status: Int = try row["status"],
            let sealed: [UInt8] = try row["response"]
        {
            return .replay(status: status, body: try sealer.open(sealed, account: request.accountID))
        }
        // Still in flight: unless its lease ran out (its server died), it is someone else's.
        guard try row["lease_expired", as: Bool?.self] == true else {
            throw PurseError(
                .idempotencyInUse, code: "idempotency_key_in_use",
                message: "There is currently another in-progress request using this Idempotent Key (that probably "
                    + "means you submitted twice, and the other request is still going through): \(request.key). "
                    + "Please try again later."
            )
        }
        let takenOver = try await connection.query(
            """
            UPDATE idempotency_keys SET lease_expires_at = now() + \(Self.seconds(Self.lease)) * interval '1 second'
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
              AND state = 'in_flight' AND lease_expires_at < now()
            RETURNING 1
            """
        )
        guard !takenOver.isEmpty else {
            throw PurseError(
                .idempotencyInUse, code: "idempotency_key_in_use",
                message: "There is currently another in-progress request using this Idempotent Key: \(request.key)."
            )
        }
        return .proceed
    }

    /// Keeps the response to a reserved key, sealed.
    public func complete(_ request: Request, status: Int, body: [UInt8]) async throws {
        let sealed = try sealer.seal(body, account: request.accountID)
        try await pool.query(
            """
            UPDATE idempotency_keys SET state = 'done', status = \(status), response = \(sealed), lease_expires_at = NULL
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
            """
        )
    }

    /// Forgets a reserved key without a response (the request was refused before it ran), so a
    /// retry runs afresh.
    public func release(_ request: Request) async throws {
        try await pool.query(
            """
            DELETE FROM idempotency_keys
            WHERE account_id = \(request.accountID) AND caller = \(request.caller) AND key = \(request.key)
              AND state = 'in_flight'
            """
        )
    }

    /// Settles a key whose answer is decided — `complete` or `release` — even while the database
    /// is unreachable: tried now, and if PostgreSQL cannot be reached, again every half second in
    /// the background, or at once when a retry of the request arrives first. A request that changed
    /// state must not look unanswered (a retry would do it twice), and one that changed nothing must
    /// not keep its key reserved (a retry would get 409 for the rest of the lease). The retries stop
    /// well within the lease, after which a retry may have taken the key over.
    public func settle(_ request: Request, _ settlement: @escaping @Sendable (IdempotencyStore) async throws -> Void) async {
        do {
            try await settlement(self)
            return
        } catch let error as PGError where error.isUnavailable {
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
                    } catch let error as PGError where error.isUnavailable {
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
        try await pool.query(
            "DELETE FROM idempotency_keys WHERE created_at < now() - \(Self.seconds(Self.retention)) * interval '1 second'"
        ).affectedRows
    }

    private static func seconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds)
    }
}
