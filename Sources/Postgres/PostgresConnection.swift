internal import CLibPQ
import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// One libpq connection, in nonblocking mode.
///
/// Not `Sendable`: one task at a time holds it, and the compiler checks that (region-based
/// isolation, SE-0414), so its handle and bookkeeping need no lock and its methods run on their
/// caller's executor, with no hop. The pool hands it to one body at a time
/// (``PostgresClient/withConnection(_:)``) and takes it back as a value no one else references.
/// It was an actor until 2026-11-28: every unit of work then crossed onto and off it, and each
/// look after other work crossed three times, each crossing a trip through the event loop's
/// queue (Benchmarks/README.md). Nothing here blocks a thread: statements are written with
/// `PQflush` and answers read with `PQconsumeInput` as the socket allows, waiting through
/// ``SocketReadiness``. What another task may do is cancel (``Canceller``).
///
/// Every exchange with the server is one libpq pipeline: a pending `BEGIN`, statements queued by
/// ``queryLater(_:)``, the `Parse` of a statement used for the first time on this connection and
/// the statement itself all travel in one round trip.
public final class PostgresConnection {
    /// A number for log lines, unique within the process.
    public let id: Int
    private var handle: OpaquePointer?
    private let readiness: SocketReadiness
    /// What another task may do with this connection: cancel the work on it (the pool does, when
    /// the holder's task is cancelled). The running statement is cancelled on the server, and
    /// later statements fail with `CancellationError` until ``resetCancellation()``.
    let canceller: Canceller
    /// Prepared statements on this connection, by SQL and parameter types.
    private var preparedStatements: [StatementKey: String] = [:]
    private var nextStatementNumber = 0
    /// Set by ``beginTransaction()`` until the next exchange carries the `BEGIN` with it.
    private var beginPending = false
    /// Statements queued by ``queryLater(_:)``, sent with the next exchange.
    private var queued: [Step] = []
    /// Exchanges with the server so far: whether a savepoint's `SAVEPOINT` has been sent yet.
    private(set) var exchangeCount = 0
    /// How long a `COMMIT` may wait before it is cancelled (``limit(statements:idleInTransaction:)``).
    private var commitTimeout: Duration?
    /// Set when an exchange gave up on the server (``waitForAnswer(within:)``); the connection
    /// is closed right after.
    private var isAbandoned = false

    /// Statements prepared before `DEALLOCATE ALL` starts the cache over, so statements built
    /// dynamically cannot grow it without bound.
    static let preparedStatementLimit = 512

    private static let nextID = Atomic<Int>(0)

    /// Connects. libpq resolves host names with a blocking call even when connecting without
    /// blocking, and may move to another socket for another host of a multi-host URL, so the
    /// connection is made on a Dispatch worker thread, once per pooled connection; everything
    /// after it is nonblocking.
    public static func connect(configuration: PostgresConfiguration) async throws -> sending PostgresConnection {
        let parameters = configuration.parameters
        let made = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ConnectedHandle, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ConnectedHandle(parameters: parameters) })
            }
        }
        return try PostgresConnection(made)
    }

    private init(_ made: ConnectedHandle) throws {
        let handle = made.take()
        guard PQsetnonblocking(handle, 1) == 0, let readiness = SocketReadiness(socket: PQsocket(handle)) else {
            PQfinish(handle)
            throw PGError(.connectionFailed, message: "Cannot watch the database connection's socket")
        }
        purse_silence_notices(handle)
        self.id = Self.nextID.add(1, ordering: .relaxed).newValue
        self.handle = handle
        self.readiness = readiness
        self.canceller = Canceller(PQgetCancel(handle))
    }

    /// A connection dropped without `close()` (a pool's caller gone) still finishes its handle.
    deinit {
        readiness.stop()
        if let handle { PQfinish(handle) }
    }

    /// Closes the connection. Safe to call more than once.
    public func close() {
        canceller.close()
        readiness.stop()
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether the connection can take a statement: open, not broken, outside a transaction block,
    /// with nothing queued. Pooled connections never LISTEN, so a server that sent anything to an
    /// idle connection is saying goodbye (a restart, an administrator's termination); checking
    /// for that costs one `poll` and no round trip.
    public var isUsable: Bool {
        guard isIdle, let handle else { return false }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0 && purse_tls_read_pending(handle) == 0
    }

    /// ``isUsable`` without asking the socket: what a connection going back to the pool needs,
    /// as the next caller's lease asks the socket anyway.
    private var isIdle: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE && queued.isEmpty && !beginPending
    }

    /// Whether a transaction block is open (idle in it, or failed in it).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    // MARK: - Statements

    /// Limits how long each statement may run, and how long the session may sit idle inside a
    /// transaction block; nil leaves a limit as the server has it.
    ///
    /// The server cancels a statement past `statements` (`statement_timeout`, SQLSTATE 57014,
    /// ``PGError/isUnavailable``). A `COMMIT` the server does not time out: one waiting for a
    /// synchronous standby would wait for as long as the standby is away, so this connection
    /// cancels it past `statements`, and its outcome is unknown. A session idle in a transaction
    /// past `idleInTransaction` is ended by the server (`idle_in_transaction_session_timeout`),
    /// which releases its locks: a process that stalled or lost its network mid-transaction
    /// holds nobody's rows for longer.
    public func limit(statements: Duration?, idleInTransaction: Duration?) async throws {
        func milliseconds(_ limit: Duration) -> Int64 {
            max(1, limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)
        }
        var settings: [String] = []
        if let statements { settings.append("SET statement_timeout = \(milliseconds(statements))") }
        if let idleInTransaction { settings.append("SET idle_in_transaction_session_timeout = \(milliseconds(idleInTransaction))") }
        guard !settings.isEmpty else { return }
        try await simpleQuery(settings.joined(separator: "; "))
        commitTimeout = statements
    }

    /// Opens a transaction block. `BEGIN` is not sent by itself: it travels with the next
    /// exchange.
    public func beginTransaction() {
        beginPending = true
    }

    /// Runs one statement with its binds and returns its rows. A pending `BEGIN`, queued
    /// statements and the statement's first-use preparation go in the same round trip.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        // Planned first: a statement refused before sending leaves the BEGIN pending for the next.
        let planned = try plan(query)
        return try await exchange(takePending() + planned)
    }

    /// Queues a statement whose rows nobody reads (an event's insert, say), to be sent with the
    /// connection's next exchange: the next ``query(_:)``, the transaction's ``commit()``, or the
    /// pool's return of the connection. Its error, if it has one, is thrown by that call. A value
    /// that cannot be sent (a NUL in text) is refused here.
    ///
    /// Outside a transaction block the queued statements and the one they travel with run as
    /// one implicit transaction: if that statement fails, theirs are rolled back with it.
    public func queryLater(_ query: PostgresQuery) throws {
        queued += try plan(query)
    }

    /// Commits the transaction ``beginTransaction()`` opened, in the same round trip as any
    /// queued statements. A transaction that sent nothing costs no round trip at all.
    public func commit() async throws {
        if beginPending && queued.isEmpty {
            beginPending = false  // the block was never opened
            return
        }
        let handle = try openHandle()
        if PQtransactionStatus(handle) == PQTRANS_INERROR {
            // A statement failed and its error was caught: `COMMIT` would roll back and report
            // success. The caller's rollback ends the block.
            throw PGError(
                .server, message: "current transaction is aborted: a statement in it failed, so it cannot commit",
                sqlState: .inFailedTransaction
            )
        }
        do {
            try await exchange(takePending() + [.text("COMMIT")], cancellingAfter: commitTimeout)
        } catch let error as PGError where error.kind == .connectionFailed {
            throw PGError(
                .commitOutcomeUnknown,
                message: "The connection was lost while COMMIT ran, so the transaction may or may not have committed"
            )
        }
        // A cancel (the caller's, or the time limit's) cannot stop a COMMIT short of its local
        // commit; one that arrived while it waited for a synchronous standby ended the wait, and
        // PostgreSQL reported success with only a warning: the standby, and so a failover, may
        // not have it.
        if canceller.isCancelled {
            throw PGError(
                .commitOutcomeUnknown,
                message: "COMMIT was cancelled while it ran: committed here, but perhaps not on a synchronous standby"
            )
        }
    }

    /// Runs `body` as a savepoint of the open transaction block: when it throws, what it did is
    /// undone and the block goes on as if it had not run. `SAVEPOINT` and `RELEASE` travel with
    /// the statements around them; only a failure after something was sent costs a round trip.
    @discardableResult
    public func withSavepoint<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let mark = (exchanges: exchangeCount, queued: queued.count)
        queued.append(.text("SAVEPOINT purse_unit"))
        do {
            let result = try await body(self)
            queued.append(.text("RELEASE SAVEPOINT purse_unit"))
            return result
        } catch {
            if exchangeCount == mark.exchanges {
                // Nothing was sent since the savepoint was asked for: forget it and what followed.
                discardQueued(from: mark.queued)
            } else {
                // What the body queued after its last exchange goes too. A rollback that fails
                // leaves the block failed, and its commit refuses; the body's error says why.
                discardQueued()
                _ = try? await exchange([.text("ROLLBACK TO SAVEPOINT purse_unit"), .text("RELEASE SAVEPOINT purse_unit")])
            }
            throw error
        }
    }

    /// Sends queued statements, if any (with a pending `BEGIN`); their error is thrown here.
    public func sendQueued() async throws {
        guard !queued.isEmpty else { return }
        try await exchange(takePending())
    }

    /// Runs SQL text without binds through the simple-query protocol. The text may hold several
    /// statements (a migration file, say). Rows are not returned.
    public func simpleQuery(_ sql: String) async throws {
        try await sendQueued()
        let text = beginPending ? "BEGIN; " + sql : sql
        beginPending = false
        let handle = try openHandle()
        exchangeCount += 1
        let mayCommit = !text.hasPrefix("BEGIN") && !isInTransaction
        var limits = try AnswerLimits.forStatement()
        try canceller.startRunning()
        let answered = await simpleExchange(text, on: handle, within: &limits)
        let result = try canceller.finishRunning(try closingIfAbandoned(answered, mayHaveCommitted: mayCommit))
        defer { PQclear(result) }
        try check(result)
    }

    /// Rolls back an open transaction block, even after a cancellation, so the connection can be
    /// reused. Returns false when the connection cannot be used any more.
    public func rollBackOpenTransaction() async -> Bool {
        beginPending = false  // nothing was sent: there is no block to roll back
        discardQueued()
        guard isInTransaction else { return isIdle }
        guard let handle else { return false }
        // Not cancelled at the deadline, but not waited for past its grace either.
        var limits = AnswerLimits.forRollback()
        let answered = await simpleExchange("ROLLBACK", on: handle, within: &limits)
        guard let result = try? closingIfAbandoned(answered, mayHaveCommitted: false) else { return false }
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_COMMAND_OK
    }

    // MARK: - Listening

    /// Waits up to `timeout` for notifications on the channels this connection `LISTEN`s to and
    /// returns those that arrived, nothing after a quiet wait. Throws when the connection is
    /// lost, so the listener knows it may have missed some.
    public func notifications(waitingUpTo timeout: Duration) async throws -> [PostgresNotification] {
        let handle = try openHandle()
        let pending = Self.takeNotifications(handle)
        if !pending.isEmpty { return pending }
        if purse_tls_read_pending(handle) == 0 {
            guard try await readiness.wait(timeout: timeout) == .readable else { return [] }
        }
        try Self.consumeInput(handle)
        return Self.takeNotifications(handle)
    }

    /// Sends `SELECT 1` and waits up to `timeout` for its answer. A connection that only listens
    /// learns nothing otherwise of a server that stopped answering: one dropped by a firewall,
    /// or a failover without a reset, sends no error and the kernel may wait many minutes.
    /// Notifications that arrive meanwhile are kept for ``notifications(waitingUpTo:)``.
    public func checkAlive(within timeout: Duration) async throws {
        let handle = try openHandle()
        guard PQsendQuery(handle, "SELECT 1") == 1 else {
            throw PGError(.connectionFailed, message: Self.errorMessage(of: handle))
        }
        let deadline = ContinuousClock.now + timeout
        try await flush(handle, until: deadline)
        var failure: PGError?
        while true {
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else {
                    if let failure { throw failure }
                    return
                }
                if Self.isError(result), failure == nil {
                    failure = PGError(.connectionFailed, message: Self.field(result, purse_diag_message_primary()) ?? Self.errorMessage(of: handle))
                }
                PQclear(result)
            }
            if purse_tls_read_pending(handle) == 0 {
                let left = deadline - .now
                guard left > .zero, try await readiness.wait(timeout: left) == .readable else {
                    throw PGError(.connectionFailed, message: "PostgreSQL did not answer within \(timeout)")
                }
            }
            try Self.consumeInput(handle)
        }
    }

    // MARK: - Cancellation

    /// Clears a cancellation, for the next caller of a pooled connection. False while a cancel
    /// request is still on its way to the server: it could cancel that caller's statement.
    func resetCancellation() -> Bool {
        canceller.reset()
    }

    // MARK: - Exchanges

    /// One command of an exchange.
    private enum Step {
        case text(String)
        case prepare(name: String, sql: String, types: [Oid])
        case execute(name: String, binds: [PostgresBind])
    }

    /// The pending `BEGIN` and the queued statements, taken for an exchange.
    private func takePending() -> [Step] {
        defer {
            beginPending = false
            queued.removeAll()
        }
        return (beginPending ? [.text("BEGIN")] : []) + queued
    }

    /// The steps that run `query`: its preparation on first use, then its execution.
    private func plan(_ query: PostgresQuery) throws -> [Step] {
        try Self.checkSendable(query.binds)
        let key = StatementKey(query)
        if let name = preparedStatements[key] { return [.execute(name: name, binds: query.binds)] }
        var steps: [Step] = []
        // Not while statements naming older ones wait in the queue: they would lose them.
        if preparedStatements.count >= Self.preparedStatementLimit, queued.isEmpty {
            steps.append(.text("DEALLOCATE ALL"))
            preparedStatements.removeAll()
        }
        nextStatementNumber += 1
        let name = "purse_\(nextStatementNumber)"
        preparedStatements[key] = name
        steps.append(.prepare(name: name, sql: query.sql, types: query.binds.map { Oid($0.type.oid) }))
        steps.append(.execute(name: name, binds: query.binds))
        return steps
    }

    /// Sends `steps` as one pipeline and reads their answers; returns the last step's rows, or
    /// throws the first failure's error (the server skips what follows a failure).
    /// With `cancellingAfter`, a statement still running then is cancelled (a `COMMIT` waiting
    /// for a synchronous standby, which the server does not time out).
    @discardableResult
    private func exchange(_ steps: [Step], cancellingAfter limit: Duration? = nil) async throws -> PostgresRows {
        // Whatever happens (even nothing sent), a statement whose Parse did not succeed is
        // prepared again next time.
        var parsed: Set<Int> = []
        defer { forgetUnprepared(steps, parsed: parsed) }
        let handle = try openHandle()
        exchangeCount += 1
        // Outside a transaction block the pipeline is one implicit transaction, committed at its sync.
        let mayCommit = !isInTransaction && !steps.contains { if case .text("BEGIN") = $0 { true } else { false } }
        var limits = try AnswerLimits.forStatement(cancellingAfter: limit)
        try canceller.startRunning()
        let answered = await pipeline(steps, on: handle, within: &limits, succeeded: &parsed)
        let answer = try canceller.finishRunning(try closingIfAbandoned(answered, mayHaveCommitted: mayCommit))
        defer { PQclear(answer) }
        try check(answer)
        return Self.rows(of: answer)
    }

    /// The pipeline: every step, one sync, then every answer. Returns the first failed step's
    /// result, else the last step's, or nil when the connection failed (``check(_:)`` reports it);
    /// `succeeded` holds the indices of the steps that succeeded.
    private func pipeline(
        _ steps: [Step], on handle: OpaquePointer, within limits: inout AnswerLimits, succeeded: inout Set<Int>
    ) async -> OpaquePointer? {
        guard PQenterPipelineMode(handle) == 1 else { return nil }
        defer { _ = PQexitPipelineMode(handle) }
        for step in steps {
            guard Self.send(step, on: handle) == 1 else { return nil }
        }
        guard PQpipelineSync(handle) == 1 else { return nil }
        guard await flush(handle, within: limits) else { return nil }
        // Each step's results end with a NULL; the sync's own result ends the pipeline.
        var results: [OpaquePointer] = []
        var ends = 0
        var looks = 0
        reading: while true {
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else {
                    ends += 1
                    if ends > steps.count || PQstatus(handle) != CONNECTION_OK { break reading }
                    continue
                }
                if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                    PQclear(result)
                    break reading
                }
                results.append(result)
            }
            // Looked for only after the executor's other work, then waited for: right after the
            // send the answer is never there yet. Over TLS, what libpq has not read may already
            // sit decrypted in OpenSSL, where the socket will never report it: read on instead.
            if purse_tls_read_pending(handle) == 0 {
                if looks < Self.looksAfterOtherWork {
                    looks += 1
                    if await Self.answerArrivedAfterOtherWork(handle) {
                        guard PQconsumeInput(handle) == 1 else { break }
                        continue
                    }
                }
                guard await waitForAnswer(within: &limits) else { break }
            }
            guard PQconsumeInput(handle) == 1 else { break }
        }
        succeeded = Set(results.prefix(steps.count).indices.filter { !Self.isError(results[$0]) })
        // Results past the steps' are errors of a connection lost after every step answered (a
        // shutdown between the COMMIT and the sync's answer, say): the steps still ran, and the
        // COMMIT's success must not be reported as a failure. An error that came in place of a
        // step's answer is among the first results, so it is the answer.
        guard results.count >= steps.count else {
            // The connection went: an error the server sent before it went (a shutdown's, say) is
            // the answer; otherwise libpq's own message is.
            let error = results.first(where: Self.isError)
            for result in results where result != error { PQclear(result) }
            return error
        }
        let answer = results.prefix(steps.count).firstIndex(where: Self.isError) ?? steps.count - 1
        for (index, result) in results.enumerated() where index != answer { PQclear(result) }
        return results[answer]
    }

    /// Drops queued statements never sent, from `start` on.
    private func discardQueued(from start: Int = 0) {
        forgetUnprepared(Array(queued[start...]), parsed: [])
        queued.removeSubrange(start...)
    }

    /// Forgets the statements whose `Parse` did not succeed (their step's index is not in
    /// `parsed`), so their next use prepares them again.
    private func forgetUnprepared(_ steps: [Step], parsed: Set<Int>) {
        for (index, step) in steps.enumerated() where !parsed.contains(index) {
            guard case .prepare(let name, _, _) = step,
                let key = preparedStatements.first(where: { $0.value == name })?.key
            else { continue }
            preparedStatements[key] = nil
        }
    }

    /// Text through the simple-query protocol, outside pipeline mode; the first failure's
    /// result, else the last result, or nil when the connection failed.
    private func simpleExchange(_ sql: String, on handle: OpaquePointer, within limits: inout AnswerLimits) async -> OpaquePointer? {
        guard PQsendQuery(handle, sql) == 1, await flush(handle, within: limits) else { return nil }
        var answer: OpaquePointer?
        while true {
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else { return answer }
                if let kept = answer, !Self.isError(result) || Self.isError(kept) {
                    PQclear(result)  // the first failure, or the first result, is the answer
                } else {
                    if let kept = answer { PQclear(kept) }
                    answer = result
                }
            }
            if purse_tls_read_pending(handle) == 0 {
                guard await waitForAnswer(within: &limits) else { return answer }
            }
            guard PQconsumeInput(handle) == 1 else { return answer }
        }
    }

    /// Waits until the server's answer can be read. At `limits.cancelAt` the statement is
    /// cancelled on the server and the wait goes on; at `limits.abandonAt` it ends: false, and
    /// the connection is marked abandoned (``closingIfAbandoned(_:)`` closes it once the
    /// exchange has let go of the handle).
    private func waitForAnswer(within limits: inout AnswerLimits) async -> Bool {
        while true {
            let until = limits.cancelAt ?? limits.abandonAt
            let outcome = try? await readiness.wait(readable: true, writable: false, timeout: until.map { max(.zero, $0 - .now) })
            switch outcome {
            case .readable?, .writable?: return true
            case nil: return false
            case .timedOut?:
                if limits.cancelAt != nil {
                    limits.cancelAt = nil
                    canceller.cancel()
                } else {
                    isAbandoned = true
                    return false
                }
            }
        }
    }

    /// Lets the executor run what else it has queued, then looks at the socket without waiting.
    /// Under load the answer has often come meanwhile, and taking it then costs neither the
    /// reactor thread's wake-up nor the executor's.
    private static func answerArrivedAfterOtherWork(_ handle: OpaquePointer) async -> Bool {
        await Task.yield()
        var socket = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&socket, 1, 0) == 1
    }

    /// Looks per exchange before waiting on the reactor. On an idle executor each costs a
    /// `Task.yield` and a `poll`, a few µs, and finds nothing yet; under load other connections'
    /// work runs between them. Measured side by side (Benchmarks/README.md): one look cut
    /// Purse's CPU per list by 11 % and per retrieve by 6 %, three a little more, eight (ending
    /// at the first yield that ran nothing else) no more than three.
    static let looksAfterOtherWork = 3

    /// Sends the statements, until the deadline's grace has passed: false when they could not
    /// be sent, and the connection is marked abandoned when the grace ran out.
    private func flush(_ handle: OpaquePointer, within limits: AnswerLimits) async -> Bool {
        guard (try? await flush(handle, until: limits.abandonAt)) == nil else { return true }
        isAbandoned = limits.abandonAt.map { $0 <= .now } ?? false
        return false
    }

    /// `result`, unless the exchange gave the server up: then the connection is closed (the
    /// server rolls back a transaction block it had open) and the statement fails as a lost
    /// connection, or, when it may have committed on its own, with an unknown outcome.
    private func closingIfAbandoned(_ result: OpaquePointer?, mayHaveCommitted: Bool) throws -> OpaquePointer? {
        guard isAbandoned else { return result }
        if let result { PQclear(result) }
        close()
        throw PGError(
            mayHaveCommitted ? .commitOutcomeUnknown : .connectionFailed,
            message: "PostgreSQL answered neither the statement nor its cancel by the deadline's end; the connection was closed"
        )
    }

    /// Writes what libpq holds until it is all sent, reading meanwhile when the server writes
    /// (so neither side blocks on a full buffer), until `deadline` if there is one.
    private func flush(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant?) async throws {
        while true {
            switch PQflush(handle) {
            case 0: return
            case 1: break
            default: throw PGError(.connectionFailed, message: Self.errorMessage(of: handle))
            }
            let timeout = deadline.map { $0 - .now }
            if let timeout, timeout <= .zero {
                throw PGError(.connectionFailed, message: "PostgreSQL did not take the statement in time")
            }
            switch try await readiness.wait(readable: true, writable: true, timeout: timeout) {
            case .readable: try Self.consumeInput(handle)
            case .writable: continue
            case .timedOut: throw PGError(.connectionFailed, message: "PostgreSQL did not take the statement in time")
            }
        }
    }

    private static func send(_ step: Step, on handle: OpaquePointer) -> Int32 {
        switch step {
        case .text(let sql):
            return PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0)
        case .prepare(let name, let sql, let types):
            return PQsendPrepare(handle, name, sql, Int32(types.count), types)
        case .execute(let name, let binds):
            // libpq copies the values into its output buffer during the call.
            return withParameters(binds) { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(binds.count), values, lengths, formats, 1)
            }
        }
    }

    // MARK: - Internals

    private func openHandle() throws -> OpaquePointer {
        guard let handle else { throw PGError(.connectionFailed, message: "The connection is closed") }
        return handle
    }

    /// Reads what has arrived (on TLS, all OpenSSL holds too); throws when the connection is lost.
    private static func consumeInput(_ handle: OpaquePointer) throws {
        repeat {
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
                throw PGError(.connectionFailed, message: errorMessage(of: handle))
            }
        } while purse_tls_read_pending(handle) == 1
    }

    private static func takeNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
        var notifications: [PostgresNotification] = []
        while let notification = PQnotifies(handle) {
            notifications.append(
                PostgresNotification(
                    channel: String(cString: notification.pointee.relname),
                    payload: String(cString: notification.pointee.extra),
                    senderPID: notification.pointee.be_pid
                )
            )
            PQfreemem(notification)
        }
        return notifications
    }

    private static func isError(_ result: OpaquePointer) -> Bool {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return false
        default: return true
        }
    }

    /// Throws the error a result carries, if any.
    private func check(_ result: OpaquePointer?) throws {
        let handle = try openHandle()
        guard let result else {
            throw PGError(.connectionFailed, message: Self.errorMessage(of: handle))
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let message = Self.field(result, purse_diag_message_primary()) ?? Self.errorMessage(of: handle)
            let sqlState = Self.sqlState(of: result)
            let lost = PQstatus(handle) != CONNECTION_OK
            throw PGError(
                lost || sqlState?.isConnectionClass == true ? .connectionFailed : .server,
                message: message,
                sqlState: sqlState,
                detail: Self.field(result, purse_diag_message_detail()),
                constraint: Self.field(result, purse_diag_constraint_name())
            )
        }
    }

    fileprivate static func sqlState(of result: OpaquePointer) -> SQLState? {
        field(result, purse_diag_sqlstate()).map(SQLState.init)
    }

    private static func field(_ result: OpaquePointer, _ code: Int32) -> String? {
        PQresultErrorField(result, code).map { String(cString: $0) }
    }

    fileprivate static func errorMessage(of connection: OpaquePointer) -> String {
        guard let message = PQerrorMessage(connection) else { return "unknown libpq error" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What identifies a prepared statement: its SQL and its parameters' types.
    private struct StatementKey: Hashable {
        let sql: String
        let types: [UInt32]

        init(_ query: PostgresQuery) {
            sql = query.sql
            types = query.binds.map(\.type.oid)
        }
    }

    /// Refuses what libpq cannot send: a NUL byte in a text value (it reads text up to the NUL).
    private static func checkSendable(_ binds: [PostgresBind]) throws {
        for bind in binds where bind.format == .text && bind.bytes?.contains(0) == true {
            throw PGError(.server, message: "invalid byte sequence for encoding \"UTF8\": 0x00", sqlState: SQLState("22021"))
        }
    }

    /// Lays the binds out as libpq wants them (pointers, lengths, formats) for one call.
    /// Text values get the NUL terminator libpq reads them by; all point into one buffer that
    /// lives for the duration of `body`.
    private static func withParameters<Result>(
        _ binds: [PostgresBind],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> Result
    ) -> Result {
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for bind in binds {
            formats.append(bind.format.rawValue)
            guard let bytes = bind.bytes else {
                offsets.append(nil)
                lengths.append(0)
                continue
            }
            offsets.append(buffer.count)
            lengths.append(Int32(bytes.count))
            buffer += bytes
            if bind.format == .text { buffer.append(0) }
        }
        if buffer.isEmpty { buffer.append(0) }  // so the base address is never nil
        return buffer.withUnsafeBufferPointer { bytes in
            // Pointers into `bytes`; they are used only inside this closure.
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in offset.map { base + $0 } }
            return values.withUnsafeBufferPointer { valuePointers in
                lengths.withUnsafeBufferPointer { lengthPointers in
                    formats.withUnsafeBufferPointer { formatPointers in
                        body(valuePointers.baseAddress, lengthPointers.baseAddress, formatPointers.baseAddress)
                    }
                }
            }
        }
    }

    /// Copies a result's rows into Swift values.
    private static func rows(of result: OpaquePointer?) -> PostgresRows {
        guard let result else { return PostgresRows(columns: [], affectedRows: 0, bytes: [], ranges: []) }
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { column in
            PostgresRows.Column(
                name: String(cString: PQfname(result, Int32(column))),
                type: PostgresType(oid: UInt32(PQftype(result, Int32(column))))
            )
        }
        var size = 0
        for row in 0..<rowCount {
            for column in 0..<columnCount { size += Int(PQgetlength(result, Int32(row), Int32(column))) }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var ranges: [Range<Int>?] = []
        ranges.reserveCapacity(rowCount * columnCount)
        for row in 0..<rowCount {
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    ranges.append(nil)
                    continue
                }
                let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                let start = bytes.count
                // PQgetvalue points at `length` bytes owned by the result, which is alive here.
                let value = UnsafeRawPointer(PQgetvalue(result, Int32(row), Int32(column))!)
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: value, count: length))
                ranges.append(start..<(start + length))
            }
        }
        let affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? rowCount
        return PostgresRows(columns: columns, affectedRows: affected, bytes: bytes, ranges: ranges)
    }
}

/// A connected libpq handle on its way from the thread that connected it to its connection.
///
/// `@unchecked Sendable`: it is made on one thread and taken once on another, after the
/// continuation that carries it has handed it over; nothing uses it in between.
private final class ConnectedHandle: @unchecked Sendable {
    private var handle: OpaquePointer?

    /// Connects, blocking (see ``PostgresConnection/connect(configuration:)``).
    init(parameters: [(keyword: String, value: String)]) throws {
        let keywords = parameters.map { strdup($0.keyword) } + [nil]
        let values = parameters.map { strdup($0.value) } + [nil]
        defer {
            for keyword in keywords { free(keyword) }
            for value in values { free(value) }
        }
        // The arrays outlive the call; libpq copies what it keeps.
        let connection = keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywordPointers in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                PQconnectdbParams(keywordPointers.baseAddress, valuePointers.baseAddress, 0)
            }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { PostgresConnection.errorMessage(of: $0) } ?? "out of memory"
            PQfinish(connection)  // required even after a failed connect
            throw PGError(.connectionFailed, message: message)
        }
        handle = connection
    }

    func take() -> OpaquePointer {
        defer { handle = nil }
        return handle!
    }

    deinit {
        if let handle { PQfinish(handle) }
    }
}

/// What any task needs to cancel the statement a connection runs: the libpq cancel handle, and
/// whether a statement runs now. Sendable: its state sits behind a lock, and `PQcancel` is
/// documented as safe from any thread.
final class Canceller: Sendable {
    private let state: NIOLockedValueBox<State>

    private struct State {
        var handle: CancelHandle?
        var isRunning = false
        /// Set by `cancel()` until `reset()`: statements started after a cancellation fail at
        /// once instead of running.
        var isCancelled = false
        /// A cancel request is on its way to the server. Until it has arrived it could still
        /// cancel a later statement, so the connection serves no other caller meanwhile.
        var isSending = false
    }

    init(_ cancel: OpaquePointer?) {
        state = NIOLockedValueBox(State(handle: cancel.map(CancelHandle.init)))
    }

    func cancel() {
        let handle = state.withLockedValue { state -> CancelHandle? in
            state.isCancelled = true
            guard state.isRunning, !state.isSending, let handle = state.handle else { return nil }
            state.isSending = true
            return handle
        }
        guard let handle else { return }
        // `PQcancel` connects to the server and waits for it to hang up: not on the cancelling
        // thread (an event loop, often), and not under the lock a statement's end takes.
        DispatchQueue.global().async { self.send(handle, attempt: 1) }
    }

    /// Sends the cancel request, and again while the statement still runs: a request that
    /// reaches the server before the statement has started there is dropped, as PostgreSQL
    /// cancels only what a backend is running.
    private func send(_ handle: CancelHandle, attempt: Int) {
        handle.send()
        let again = state.withLockedValue { state in
            let stillRunning = state.isRunning && state.isCancelled && state.handle != nil
            if !stillRunning || attempt == Self.attempts { state.isSending = false }
            return stillRunning && attempt < Self.attempts
        }
        guard again else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.pauseBetweenAttempts) {
            self.send(handle, attempt: attempt + 1)
        }
    }

    private static let attempts = 10
    private static let pauseBetweenAttempts = DispatchTimeInterval.milliseconds(250)

    /// Whether `cancel()` was called since the last `reset()`.
    var isCancelled: Bool {
        state.withLockedValue { $0.isCancelled }
    }

    func reset() -> Bool {
        state.withLockedValue { state in
            state.isCancelled = false
            return !state.isSending
        }
    }

    func close() {
        state.withLockedValue { $0.handle = nil }
    }

    /// Marks a statement as running, so `cancel()` cancels it on the server; throws if the
    /// caller was cancelled already.
    func startRunning() throws {
        let cancelledBefore = state.withLockedValue { state in
            state.isRunning = !state.isCancelled
            return state.isCancelled
        }
        if cancelledBefore { throw CancellationError() }
    }

    /// Ends what ``startRunning()`` began: a server-side cancel we asked for becomes
    /// `CancellationError`; any other result is returned for checking.
    func finishRunning(_ result: OpaquePointer?) throws -> OpaquePointer? {
        let cancelled = state.withLockedValue { state in
            state.isRunning = false
            return state.isCancelled
        }
        if cancelled, let result, PostgresConnection.sqlState(of: result) == .queryCanceled {
            PQclear(result)
            throw CancellationError()
        }
        return result
    }
}

/// A `PGcancel`, freed when its last holder lets go: a cancel request still being sent may
/// outlive the connection. `@unchecked Sendable`: libpq documents `PQcancel` as safe from any
/// thread, and nothing else uses the pointer.
private final class CancelHandle: @unchecked Sendable {
    private let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        PQfreeCancel(pointer)
    }

    /// Asks the server to cancel what the connection is running, and waits for its reply.
    func send() {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(pointer, &buffer, Int32(buffer.count))
    }
}

/// When a wait for the server's answer cancels its statement, and when it gives the connection
/// up: from the caller's ``PostgresDeadline`` and, for a `COMMIT`, the connection's own limit.
private struct AnswerLimits {
    var cancelAt: ContinuousClock.Instant?
    let abandonAt: ContinuousClock.Instant?

    /// For a statement: cancelled at the deadline, or `cancellingAfter` from now if sooner, and
    /// given up `grace` after the deadline. Past the deadline it is not sent at all.
    static func forStatement(cancellingAfter limit: Duration? = nil) throws -> AnswerLimits {
        let deadline = PostgresDeadline.current
        if let deadline, deadline.instant <= .now { throw CancellationError() }
        var cancelAt = deadline?.instant
        if let limit {
            let own = ContinuousClock.now + limit
            cancelAt = min(cancelAt ?? own, own)
        }
        return AnswerLimits(cancelAt: cancelAt, abandonAt: deadline.map { $0.instant + $0.grace })
    }

    /// For the `ROLLBACK` that cleans up after a statement: never cancelled, given up with the
    /// deadline's grace.
    static func forRollback() -> AnswerLimits {
        AnswerLimits(cancelAt: nil, abandonAt: PostgresDeadline.current.map { $0.instant + $0.grace })
    }
}
