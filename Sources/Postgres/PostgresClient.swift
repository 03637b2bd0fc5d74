public import Logging
public import NIOCore
public import NIOPosix
public import ServiceLifecycle

/// A bounded pool of connections, and the way to run work on one of them.
///
/// Work is an async body given a leased ``PostgresConnection``. The connection is not `Sendable`:
/// the compiler lets no other task touch it while the body has it, and the body runs on the
/// caller's executor, so its statements cost no hop. Nothing waits on a thread: the connection
/// writes and reads without blocking, and its socket's readiness resumes it.
///
/// Run it as a ServiceLifecycle `Service`: graceful shutdown waits for leased connections to
/// come back and then closes everything. Nothing starts before it is used.
public final class PostgresClient: Sendable, Service {
    public struct Options: Sendable {
        /// The most connections open at once.
        public var maxConnections: Int
        /// How long a caller waits for a free connection before ``PGError/Kind/poolTimeout``.
        public var checkoutTimeout: Duration
        /// How long one statement may run (nil: as long as it takes); see
        /// ``PostgresConnection/limit(statements:idleInTransaction:)``.
        public var statementTimeout: Duration?
        /// How long a session may sit idle inside a transaction before the server ends it (nil:
        /// the server's setting).
        public var idleInTransactionTimeout: Duration?

        public init(
            maxConnections: Int = 8, checkoutTimeout: Duration = .seconds(5), statementTimeout: Duration? = nil,
            idleInTransactionTimeout: Duration? = nil
        ) {
            self.maxConnections = max(1, maxConnections)
            self.checkoutTimeout = checkoutTimeout
            self.statementTimeout = statementTimeout
            self.idleInTransactionTimeout = idleInTransactionTimeout
        }
    }

    /// A snapshot of the pool, for metrics.
    public struct Statistics: Sendable {
        public var open: Int
        public var idle: Int
        public var waiting: Int
        /// Callers that had to wait for a connection, since start.
        public var totalWaits: Int
        /// Time those callers spent waiting, in total (ended waits only).
        public var totalWaitTime: Duration
        /// Waits that ended in ``PGError/Kind/poolTimeout``, since start.
        public var timeouts: Int
    }

    public let configuration: PostgresConfiguration
    public let options: Options
    private let timerLoop: any EventLoop
    private let state: LockedState<PoolState>
    private let logger: Logger

    public init(
        configuration: PostgresConfiguration,
        options: Options = Options(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "purse.postgres")
    ) {
        self.configuration = configuration
        self.options = options
        self.timerLoop = eventLoopGroup.next()
        self.state = LockedState(PoolState(maxConnections: options.maxConnections))
        self.logger = logger
    }

    /// Runs `body` with a connection of its own.
    ///
    /// Statements `body` queued are sent before the connection goes back, and a transaction
    /// block it leaves open is rolled back. Cancelling the calling task cancels the statement
    /// running on the server.
    public func withConnection<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try Task.checkCancellation()
        let connection = try await lease()
        let canceller = connection.canceller
        // The closure takes the connection over and gives it back to the pool itself: a value a
        // closure captures joins the caller's region, and could not be sent to the pool after.
        var lent = Optional(Disconnected(connection))
        let outcome = await withTaskCancellationHandler { () async -> Swift.Result<Result, any Error> in
            let connection = lent.take()!.take()
            let (outcome, reusable) = await Self.run(body, on: connection)
            release(connection, reusable: reusable)
            return outcome
        } onCancel: {
            canceller.cancel()
        }
        return try outcome.get()
    }

    /// `body` on `connection`, then what the connection needs before it goes back; whether it
    /// can be reused.
    private static func run<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result,
        on connection: PostgresConnection
    ) async -> (Swift.Result<Result, any Error>, reusable: Bool) {
        do {
            let result = try await body(connection)
            try await connection.sendQueued()
            return (.success(result), await connection.rollBackOpenTransaction())
        } catch {
            return (.failure(error), await connection.rollBackOpenTransaction())
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Statements the body queued with ``PostgresConnection/queryLater(_:)`` travel with the COMMIT.
    ///
    /// With `retryingConflicts`, a transaction the server gave up on because of another
    /// (``PGError/isTransientConflict``: a deadlock, a serialization failure) runs again, up to
    /// that many more times, after a short random pause; the body must then be safe to run again,
    /// which a body whose every effect is in the transaction is.
    public func withTransaction<Result: Sendable>(
        retryingConflicts retries: Int = 0,
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await withConnection { connection in
                    connection.beginTransaction()
                    let result = try await body(connection)
                    try await connection.commit()
                    return result
                }
            } catch let error as PGError where error.isTransientConflict && attempt < retries {
                attempt += 1
                logger.debug("Running a transaction again after a conflict", metadata: ["sqlstate": "\(error.sqlState?.code ?? "")"])
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...20) * attempt))
            }
        }
    }

    /// Runs one statement on a pooled connection.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { try await $0.query(query) }
    }

    public var statistics: Statistics {
        state.withLock { state in
            Statistics(
                open: state.openCount,
                idle: state.idle.count,
                waiting: state.waiters.count,
                totalWaits: state.totalWaits,
                totalWaitTime: state.totalWaitTime,
                timeouts: state.timeouts
            )
        }
    }

    /// Waits for graceful shutdown, then closes the pool.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    /// Closes the pool: waiting callers fail, idle connections close at once, leased ones when
    /// they come back; returns when all are closed.
    public func close() async {
        let waiters = state.withLock { state in
            state.isClosed = true
            state.timeoutSweep?.timer.cancel()
            state.timeoutSweep = nil
            defer { state.waiters.removeAll() }
            state.openCount -= state.idle.count
            for connection in state.idle { connection.close() }
            state.idle.removeAll()
            return state.waiters
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: PGError(.poolClosed, message: "The connection pool is closed"))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.openCount == 0 { return true }
                state.drained.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: - Leasing

    /// What a waiting caller is handed: a connection (kept for it in ``PoolState/handedOver``),
    /// or the right to open one.
    enum Grant {
        case connection
        case permitToConnect
    }

    /// A connection for one caller: an idle one that is still usable, else a new one.
    private func lease() async throws -> sending PostgresConnection {
        let decision = state.withLock { state -> sending LeaseDecision in
            if state.isClosed { return .closed }
            if let connection = state.idle.popLast() { return .use(connection) }
            if state.openCount < state.maxConnections {
                state.openCount += 1
                return .connect
            }
            state.totalWaits += 1
            return .wait
        }
        switch decision {
        case .closed:
            throw PGError(.poolClosed, message: "The connection pool is closed")
        case .use(let connection):
            return try await prepareForUse(connection)
        case .connect:
            return try await connect()
        case .wait:
            let started = ContinuousClock.now
            let id = state.withLock { state in
                state.nextWaiterID += 1
                return state.nextWaiterID
            }
            let grant: Grant
            do {
                grant = try await waitForGrant(id)
            } catch {
                recordWait(since: started, timedOut: (error as? PGError)?.kind == .poolTimeout)
                throw error
            }
            recordWait(since: started, timedOut: false)
            switch grant {
            case .connection:
                let connection = state.withLock { state -> sending PostgresConnection in
                    state.handedOver.removeValue(forKey: id)!
                }
                return try await prepareForUse(connection)
            case .permitToConnect:
                return try await connect()
            }
        }
    }

    /// Adds an ended wait to the statistics (only callers that waited pay for this).
    private func recordWait(since started: ContinuousClock.Instant, timedOut: Bool) {
        let waited = ContinuousClock.now - started
        state.withLock { state in
            state.totalWaitTime += waited
            if timedOut { state.timeouts += 1 }
        }
    }

    private enum LeaseDecision {
        case closed
        case use(PostgresConnection)
        case connect, wait
    }

    /// An idle connection is replaced by a new one when the server closed it meanwhile (a
    /// restart, say: ``PostgresConnection/isUsable``), or when a cancel request is still on its
    /// way to it, which could cancel this caller's statement.
    private func prepareForUse(_ connection: sending PostgresConnection) async throws -> sending PostgresConnection {
        guard connection.resetCancellation() else {
            discard(connection, reason: "cancel request in flight")
            return try await connect()
        }
        guard connection.isUsable else {
            discard(connection, reason: "broken")
            return try await connect()
        }
        return connection
    }

    /// Closes a connection whose slot its caller fills again with ``connect()``.
    private func discard(_ connection: PostgresConnection, reason: String) {
        logger.info("Replacing a database connection", metadata: ["connection": "\(connection.id)", "reason": "\(reason)"])
        connection.close()
    }

    /// Opens a connection in a slot already counted in `openCount`; gives the slot back on failure.
    private func connect() async throws -> sending PostgresConnection {
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration)
            do {
                try await connection.limit(statements: options.statementTimeout, idleInTransaction: options.idleInTransactionTimeout)
            } catch {
                connection.close()
                throw error
            }
            return connection
        } catch {
            releaseSlot()
            throw error
        }
    }

    private func waitForGrant(_ id: Int) async throws -> Grant {
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                let refusal = state.withLock { state -> (any Error)? in
                    if state.isClosed { return PGError(.poolClosed, message: "The connection pool is closed") }
                    // Cancelled before it was queued, the cancellation handler found no waiter
                    // to fail; a cancellation after this check finds it queued.
                    if Task.isCancelled { return CancellationError() }
                    let waiter = Waiter(id: id, continuation: continuation, checkoutTimeout: options.checkoutTimeout)
                    state.waiters.append(waiter)
                    if state.timeoutSweep.map({ waiter.deadline < $0.at }) ?? true {
                        state.timeoutSweep?.timer.cancel()
                        scheduleTimeoutSweep(at: waiter.deadline, in: &state)
                    }
                    return nil
                }
                if let refusal { continuation.resume(throwing: refusal) }
            }
        } onCancel: {
            failWaiter(id, with: CancellationError())
        }
    }

    /// One timer serves every waiter: it fires at the soonest deadline, fails those whose time
    /// is up, and sets itself for the next. A timer per waiter, set and cancelled on each wait,
    /// cost more than the wait's own bookkeeping when most requests wait.
    private func scheduleTimeoutSweep(at deadline: NIODeadline, in state: inout PoolState) {
        state.timeoutSweep = (deadline, timerLoop.scheduleTask(deadline: deadline) { [self] in failExpiredWaiters() })
    }

    /// A waiter whose checkout timeout is up fails with ``PGError/Kind/poolTimeout``; one whose
    /// caller's deadline (``PostgresDeadline``) came first, with `CancellationError`.
    private func failExpiredWaiters() {
        let now = NIODeadline.now()
        let expired = state.withLock { state -> [Waiter] in
            state.timeoutSweep = nil
            let expired = state.waiters.filter { $0.deadline <= now }
            state.waiters.removeAll { $0.deadline <= now }
            // Set again even when no one's time was up: the waiter this sweep was set for may
            // have been served, and those who came after it have no sweep of their own.
            if let next = state.waiters.lazy.map(\.deadline).min() { scheduleTimeoutSweep(at: next, in: &state) }
            return expired
        }
        let error = PGError(.poolTimeout, message: "No database connection became free within \(options.checkoutTimeout)")
        for waiter in expired { waiter.continuation.resume(throwing: waiter.isCallersDeadline ? CancellationError() : error) }
    }

    /// Resumes waiter `id` with an error, if it is still waiting.
    private func failWaiter(_ id: Int, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }

    /// Returns a connection: to the longest-waiting caller, else to the idle list. One that cannot
    /// be reused is closed, and its slot goes to a waiter as a permit to connect.
    private func release(_ connection: sending PostgresConnection, reusable: Bool) {
        enum Outcome {
            case done
            case handOver(Waiter, Grant)
            case closeAndDrain([CheckedContinuation<Void, Never>])
        }
        // Into the lock as a value no one else holds, so the pool may keep it.
        var returned = Optional(Disconnected(connection))
        let outcome = state.withLock { state -> Outcome in
            let connection = returned.take()!.take()
            if state.isClosed {
                connection.close()
                state.openCount -= 1
                let drained = state.openCount == 0 ? state.drained : []
                if state.openCount == 0 { state.drained.removeAll() }
                return .closeAndDrain(drained)
            }
            if reusable {
                if !state.waiters.isEmpty {
                    let waiter = state.waiters.removeFirst()
                    state.handedOver[waiter.id] = connection
                    return .handOver(waiter, .connection)
                }
                state.idle.append(connection)
                return .done
            }
            connection.close()
            if !state.waiters.isEmpty { return .handOver(state.waiters.removeFirst(), .permitToConnect) }
            state.openCount -= 1
            return .done
        }
        switch outcome {
        case .done:
            break
        case .handOver(let waiter, let grant):
            waiter.continuation.resume(returning: grant)
        case .closeAndDrain(let drained):
            for continuation in drained { continuation.resume() }
        }
    }

    /// Gives back a slot whose connect failed: to a waiter as a permit, else to the pool.
    private func releaseSlot() {
        let waiter = state.withLock { state -> Waiter? in
            if !state.isClosed, !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.openCount -= 1
            if state.isClosed, state.openCount == 0 {
                let drained = state.drained
                state.drained.removeAll()
                for continuation in drained { continuation.resume() }
            }
            return nil
        }
        waiter?.continuation.resume(returning: .permitToConnect)
    }
}

/// A caller waiting for a connection, first come first served.
struct Waiter {
    let id: Int
    let continuation: CheckedContinuation<PostgresClient.Grant, any Error>
    /// When its checkout timeout is up, or its caller's deadline if that comes first.
    let deadline: NIODeadline
    let isCallersDeadline: Bool

    init(id: Int, continuation: CheckedContinuation<PostgresClient.Grant, any Error>, checkoutTimeout: Duration) {
        self.id = id
        self.continuation = continuation
        let timeout = NIODeadline.now() + TimeAmount(checkoutTimeout)
        let callers = PostgresDeadline.current.map { NIODeadline.now() + TimeAmount($0.instant - .now) }
        (deadline, isCallersDeadline) = callers.map { $0 < timeout ? ($0, true) : (timeout, false) } ?? (timeout, false)
    }
}

/// The pool's bookkeeping, guarded by its mutex.
struct PoolState {
    let maxConnections: Int
    /// Connections open or being opened, leased or idle.
    var openCount = 0
    var idle: [PostgresConnection] = []
    /// Connections given to waiters whose continuations were resumed, by waiter id, until they
    /// take them: a continuation carries no value that is not `Sendable`.
    var handedOver: [Int: PostgresConnection] = [:]
    var waiters: [Waiter] = []
    /// The timer that fails waiters whose time is up, and when it fires. It stays set after its
    /// waiter is served, and when it fires finds the next deadline or, with no one waiting, clears.
    var timeoutSweep: (at: NIODeadline, timer: Scheduled<Void>)?
    var nextWaiterID = 0
    var totalWaits = 0
    var totalWaitTime = Duration.zero
    var timeouts = 0
    var isClosed = false
    /// `close()` callers waiting for the last connection to come back.
    var drained: [CheckedContinuation<Void, Never>] = []

    init(maxConnections: Int) { self.maxConnections = maxConnections }
}
