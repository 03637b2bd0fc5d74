internal import CLibPQ
import Foundation
import Synchronization

/// One libpq connection. Its calls block, so the pool runs them on its own threads, never on an
/// event loop or the cooperative pool; the exceptions are ``send(_:named:)`` and ``readAnswer()``,
/// which do not wait.
///
/// `@unchecked Sendable`: the connection is used by one caller at a time, because the pool leases
/// it to exactly one body and that body runs on one thread (or sends a statement, after which
/// only `PostgresReactor`'s thread reads the answer, handed over under its lock). The only
/// state touched from other threads meanwhile is the cancel state, which sits behind a `Mutex`.
public final class PostgresConnection: @unchecked Sendable {
    /// A number for log lines, unique within the process.
    public let id: Int
    private var handle: OpaquePointer?
    /// Prepared statements on this connection, by SQL and parameter types.
    private var preparedStatements: [StatementKey: String] = [:]
    private var nextStatementNumber = 0
    /// Set by ``beginTransaction()`` until the next statement carries the `BEGIN` with it.
    private var beginPending = false
    /// Statements queued by ``queryLater(_:)`` (prepared already), sent with the next round trip.
    private var queued: [PipelineStep] = []
    /// The first result of the statement ``send(_:named:)`` sent, kept until its answer is complete.
    private var pendingAnswer: OpaquePointer?
    private let cancelState: Mutex<CancelState>

    /// Statements prepared before `DEALLOCATE ALL` starts the cache over, so statements built
    /// dynamically cannot grow it without bound.
    static let preparedStatementLimit = 512

    private static let nextID = Atomic<Int>(0)

    /// What another thread needs to cancel the running statement.
    private struct CancelState: ~Copyable, Sendable {
        /// Made once per connection.
        var cancelHandle: CancelHandle?
        var isRunning = false
        /// Set by `cancel()` until `resetCancellation()`: statements started after a
        /// cancellation fail at once instead of running.
        var isCancelled = false
        /// A cancel request is on its way to the server. Until it has arrived it could still
        /// cancel a later statement, so the connection serves no other caller meanwhile.
        var isCancelSending = false
    }

    /// Connects, blocking until the server answers or `connect_timeout` passes.
    public init(configuration: PostgresConfiguration) throws {
        id = Self.nextID.add(1, ordering: .relaxed).newValue
        let keywords = configuration.parameters.map { strdup($0.keyword) } + [nil]
        let values = configuration.parameters.map { strdup($0.value) } + [nil]
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
            let message = connection.map { Self.errorMessage(of: $0) } ?? "out of memory"
            PQfinish(connection)  // required even after a failed connect
            throw PGError(.connectionFailed, message: message)
        }
        purse_silence_notices(connection)
        handle = connection
        cancelState = Mutex(CancelState(cancelHandle: CancelHandle(connection)))
    }

    deinit {
        close()
    }

    /// Closes the connection. Safe to call more than once.
    public func close() {
        cancelState.withLock { $0.cancelHandle = nil }
        if let pendingAnswer { PQclear(pendingAnswer) }
        pendingAnswer = nil
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether the connection can take a statement: open, not broken, outside a transaction block
    /// and with no statement in progress (a lone statement's unread answer, ``send(_:named:)``,
    /// counts as one in libpq's transaction status). Pooled connections never
    /// LISTEN, so a server that sent anything to an idle connection is saying goodbye (a restart
    /// or an administrator's termination); checking for that costs one `poll` and no round trip.
    public var isUsable: Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) == PQTRANS_IDLE else { return false }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0 && purse_tls_read_pending(handle) == 0
    }

    /// Waits up to `timeout` for notifications on the channels this connection `LISTEN`s to
    /// and returns those that arrived, nothing after a quiet wait. Throws when the connection is
    /// lost, so the listener knows it may have missed some.
    public func notifications(waitingUpTo timeout: Duration) throws -> [PostgresNotification] {
        let handle = try openHandle()
        let pending = Self.takeNotifications(handle)
        if !pending.isEmpty { return pending }
        guard try Self.waitForInput(handle, upTo: timeout) else { return [] }
        try Self.consumeInput(handle)
        return Self.takeNotifications(handle)
    }

    /// Sends `SELECT 1` and waits up to `timeout` for its answer. A connection that only
    /// listens learns nothing otherwise of a server that stopped answering: one dropped by a
    /// firewall, or a failover without a reset, sends no error and the kernel may wait many
    /// minutes. Notifications that arrive meanwhile are kept for ``notifications(waitingUpTo:)``.
    public func checkAlive(within timeout: Duration) throws {
        let handle = try openHandle()
        guard PQsendQuery(handle, "SELECT 1") == 1 else {
            throw PGError(.connectionFailed, message: Self.errorMessage(of: handle))
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            try Self.consumeInput(handle)
            var failure: PGError?
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
            let left = deadline - .now
            guard left > .zero else {
                throw PGError(.connectionFailed, message: "PostgreSQL did not answer within \(timeout)")
            }
            _ = try Self.waitForInput(handle, upTo: left)
        }
    }

    /// Waits until there is something to read: on the socket, or already decrypted in OpenSSL,
    /// where the socket does not report it. False after `timeout` with nothing, or when a signal
    /// cut the wait short.
    private static func waitForInput(_ handle: OpaquePointer, upTo timeout: Duration) throws -> Bool {
        if purse_tls_read_pending(handle) == 1 { return true }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let ready = poll(&descriptor, 1, Int32(clamping: milliseconds))
        if ready < 0 && errno != EINTR {
            throw PGError(.connectionFailed, message: "Cannot wait for the database: \(String(cString: strerror(errno)))")
        }
        return ready > 0
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

    /// Whether a transaction block is open on the connection (idle in it, or failed in it).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Opens a transaction block. `BEGIN` is not sent by itself: it travels with the next
    /// statement in one round trip (libpq's pipeline mode), which saves a round trip on every
    /// transaction.
    public func beginTransaction() {
        beginPending = true
    }

    /// Runs one statement with its binds and returns its rows.
    ///
    /// The statement is prepared on first use and reused from then on. A pending `BEGIN` and
    /// statements queued by ``queryLater(_:)`` go ahead of it in the same round trip.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        let step = try prepared(query)
        let result = try running { () -> OpaquePointer? in
            guard beginPending || !queued.isEmpty else {
                return Self.withParameters(step.binds) { values, lengths, formats in
                    PQexecPrepared(step.handle, step.name, Int32(step.binds.count), values, lengths, formats, 1)
                }
            }
            return sendPending(then: .prepared(name: step.name, binds: step.binds))
        }
        defer { PQclear(result) }
        try check(result)
        return Self.rows(of: result)
    }

    // MARK: - Waiting without a thread (PostgresReactor)

    /// The socket to wait on for an answer to ``send(_:named:)``.
    var socket: Int32 {
        handle.map { PQsocket($0) } ?? -1
    }

    /// The name of `query`'s prepared statement when ``send(_:named:)`` can send it now:
    /// prepared on this connection already, and nothing pending (a `BEGIN`, queued statements)
    /// that would have to go with it.
    func readyStatement(for query: PostgresQuery) -> String? {
        guard handle != nil, !beginPending, queued.isEmpty else { return nil }
        return preparedStatements[StatementKey(query)]
    }

    /// Sends `query` as the statement ``readyStatement(for:)`` named, without waiting for its
    /// answer: the caller waits for ``socket`` to be readable and calls ``readAnswer()``.
    /// Writing a statement to the socket does not block in practice: nothing else is in flight
    /// on it.
    func send(_ query: PostgresQuery, named name: String) throws {
        let handle = try openHandle()
        try Self.checkSendable(query.binds)
        try startRunning()
        let sent = Self.withParameters(query.binds) { values, lengths, formats in
            PQsendQueryPrepared(handle, name, Int32(query.binds.count), values, lengths, formats, 1)
        }
        guard sent == 1 else {
            _ = try finishRunning(nil)
            throw PGError(.connectionFailed, message: Self.errorMessage(of: handle))
        }
    }

    /// Reads what has arrived for the statement ``send(_:named:)`` sent. Returns nil while its
    /// answer is incomplete (wait for the socket again), else its rows or its error.
    func readAnswer() -> Result<PostgresRows, any Error>? {
        guard let handle else {
            return .failure(PGError(.connectionFailed, message: "The connection is closed"))
        }
        repeat {
            guard PQconsumeInput(handle) == 1 else {
                // The connection is gone. An error the server sent before it went (a shutdown's,
                // say) is the answer; otherwise libpq's own message is.
                return finishAnswer(pendingAnswer.map(Self.isError) == true ? takePendingAnswer() : nil)
            }
            while PQisBusy(handle) == 0 {
                // The statement is finished; its first result is the answer.
                guard let result = PQgetResult(handle) else { return finishAnswer(takePendingAnswer()) }
                if pendingAnswer == nil { pendingAnswer = result } else { PQclear(result) }
            }
            // Over TLS, what libpq has not read yet may already sit decrypted in OpenSSL, where the
            // socket will never report it: read on instead of waiting.
        } while purse_tls_read_pending(handle) == 1
        return nil
    }

    private func takePendingAnswer() -> OpaquePointer? {
        defer { pendingAnswer = nil }
        return pendingAnswer
    }

    private static func isError(_ result: OpaquePointer) -> Bool {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return false
        default: return true
        }
    }

    private func finishAnswer(_ answer: OpaquePointer?) -> Result<PostgresRows, any Error> {
        if answer == nil, let pending = pendingAnswer {
            PQclear(pending)
            pendingAnswer = nil
        }
        return Result {
            let result = try finishRunning(answer)
            defer { PQclear(result) }
            try check(result)
            return Self.rows(of: result)
        }
    }

    /// Queues a statement whose rows nobody reads (an event's insert, say) to be sent with the
    /// connection's next statement: the next ``query(_:)``, the transaction's ``commit()``, or
    /// the pool's return of the connection. Its error, if it has one, is thrown by that call.
    /// A value refused before sending (a NUL in text) is thrown here.
    ///
    /// Outside a transaction block the queued statements and the one they travel with run as
    /// one implicit transaction: if that statement fails, theirs are rolled back with it.
    public func queryLater(_ query: PostgresQuery) throws {
        let step = try prepared(query)
        queued.append(.prepared(name: step.name, binds: step.binds))
    }

    /// Commits the transaction ``beginTransaction()`` opened, in the same round trip as any
    /// queued statements. A transaction that sent nothing costs no round trip at all.
    public func commit() throws {
        if beginPending && queued.isEmpty {
            beginPending = false  // the block was never opened
            return
        }
        let handle = try openHandle()
        if PQtransactionStatus(handle) == PQTRANS_INERROR {
            // A statement failed and its error was caught: `COMMIT` would roll back and report
            // success. The caller's rollback ends the block.
            throw PGError(
                .server,
                message: "current transaction is aborted: a statement in it failed, so it cannot commit",
                sqlState: .inFailedTransaction
            )
        }
        let result = try running {
            queued.isEmpty ? PQexec(handle, "COMMIT") : sendPending(then: .text("COMMIT"))
        }
        defer { PQclear(result) }
        try check(result)
    }

    /// Sends queued statements, if any (with a pending `BEGIN`); their error is thrown here.
    func sendQueued() throws {
        guard !queued.isEmpty else { return }
        let result = try running { sendPending(then: nil) }
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs SQL text without binds through the simple-query protocol. The text may hold several
    /// statements (a migration file, say). Rows are not returned.
    public func simpleQuery(_ sql: String) throws {
        let handle = try openHandle()
        try sendQueued()
        let result = try running { () -> OpaquePointer? in
            guard beginPending else { return PQexec(handle, sql) }
            // The pending BEGIN goes first in the same text (simple-query text may hold several statements).
            beginPending = false
            return PQexec(handle, "BEGIN; " + sql)
        }
        defer { PQclear(result) }
        try check(result)
    }

    /// Cancels the caller's work on this connection, from any thread: the running statement is
    /// cancelled on the server, and later statements fail with `CancellationError` until
    /// `resetCancellation()`.
    public func cancel() {
        let cancelHandle = cancelState.withLock { state -> CancelHandle? in
            state.isCancelled = true
            guard state.isRunning, !state.isCancelSending, let cancelHandle = state.cancelHandle else { return nil }
            state.isCancelSending = true
            return cancelHandle
        }
        guard let cancelHandle else { return }
        // `PQcancel` connects to the server and waits for it to hang up: not on the cancelling
        // thread (an event loop, often), and not under the lock a statement's end takes.
        DispatchQueue.global().async {
            cancelHandle.send()
            self.cancelState.withLock { $0.isCancelSending = false }
        }
    }

    /// Clears a cancellation, for the next caller of a pooled connection. False while a cancel
    /// request is still on its way to the server: it could cancel that caller's statement.
    func resetCancellation() -> Bool {
        cancelState.withLock { state in
            state.isCancelled = false
            return !state.isCancelSending
        }
    }

    /// Rolls back an open transaction block, even after a cancellation, so the connection can be
    /// reused. Returns false when the connection cannot be used any more.
    func rollBackOpenTransaction() -> Bool {
        beginPending = false  // nothing was sent: there is no block to roll back
        queued.removeAll()
        guard isInTransaction else { return isUsable }
        guard let handle else { return false }
        let result = PQexec(handle, "ROLLBACK")
        defer { PQclear(result) }
        return result.map { PQresultStatus($0) == PGRES_COMMAND_OK } ?? false
    }

    // MARK: - Internals

    /// A `PGcancel`, freed when its last holder lets go: a cancel request still being sent may
    /// outlive the connection. `@unchecked Sendable`: libpq documents `PQcancel` as safe from
    /// any thread, and nothing else uses the pointer.
    private final class CancelHandle: @unchecked Sendable {
        private let pointer: OpaquePointer

        init?(_ connection: OpaquePointer) {
            guard let pointer = PQgetCancel(connection) else { return nil }
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

    private func openHandle() throws -> OpaquePointer {
        guard let handle else { throw PGError(.connectionFailed, message: "The connection is closed") }
        return handle
    }

    /// Marks a statement as running for `cancel()`, and turns a server-side cancel we asked for
    /// into `CancellationError`.
    private func running(_ body: () -> OpaquePointer?) throws -> OpaquePointer? {
        try startRunning()
        return try finishRunning(body())
    }

    /// Marks a statement as running, so `cancel()` cancels it on the server; throws if the
    /// caller was cancelled already.
    private func startRunning() throws {
        let cancelledBefore = cancelState.withLock { state in
            state.isRunning = !state.isCancelled
            return state.isCancelled
        }
        if cancelledBefore { throw CancellationError() }
    }

    /// Ends what ``startRunning()`` began: a server-side cancel we asked for becomes
    /// `CancellationError`; any other result is returned for ``check(_:)``.
    private func finishRunning(_ result: OpaquePointer?) throws -> OpaquePointer? {
        let cancelled = cancelState.withLock { state in
            state.isRunning = false
            return state.isCancelled
        }
        if cancelled, let result, Self.sqlState(of: result) == .queryCanceled {
            PQclear(result)
            throw CancellationError()
        }
        return result
    }

    /// One command of a pipeline: SQL text without binds, or a prepared statement.
    private enum PipelineStep {
        case text(String)
        case prepared(name: String, binds: [PostgresBind])
    }

    /// Prepares `query` on first use (one round trip, once per connection) and checks its binds
    /// can be sent.
    private func prepared(_ query: PostgresQuery) throws -> (handle: OpaquePointer, name: String, binds: [PostgresBind]) {
        let handle = try openHandle()
        try Self.checkSendable(query.binds)
        let key = StatementKey(query)
        if let name = preparedStatements[key] { return (handle, name, query.binds) }
        if preparedStatements.count >= Self.preparedStatementLimit {
            // simpleQuery sends the queue first: it names statements DEALLOCATE is about to drop.
            try simpleQuery("DEALLOCATE ALL")
            preparedStatements.removeAll()
        }
        nextStatementNumber += 1
        let name = "purse_\(nextStatementNumber)"
        let types = query.binds.map { Oid($0.type.oid) }
        let result = try running {
            PQprepare(handle, name, query.sql, Int32(types.count), types)
        }
        defer { PQclear(result) }
        try check(result)
        preparedStatements[key] = name
        return (handle, name, query.binds)
    }

    /// Sends the pending `BEGIN`, the queued statements and `last` in one round trip, and
    /// clears them. A statement refused before sending (``checkSendable(_:)``) never gets here,
    /// so the BEGIN stays pending for the next one.
    private func sendPending(then last: PipelineStep?) -> OpaquePointer? {
        guard let handle else { return nil }
        var steps: [PipelineStep] = beginPending ? [.text("BEGIN")] : []
        steps += queued
        if let last { steps.append(last) }
        beginPending = false
        queued.removeAll()
        return Self.pipeline(handle, steps)
    }

    /// Sends `steps` in pipeline mode, then one sync. Returns the first failed step's result,
    /// else the last step's (its rows), or nil when the connection failed (`check` reports it).
    private static func pipeline(_ handle: OpaquePointer, _ steps: [PipelineStep]) -> OpaquePointer? {
        guard PQenterPipelineMode(handle) == 1 else { return nil }
        defer { _ = PQexitPipelineMode(handle) }
        for step in steps {
            let sent: Int32
            switch step {
            case .text(let sql):
                sent = PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0)
            case .prepared(let name, let binds):
                // libpq copies the values into its output buffer during the call.
                sent = withParameters(binds) { values, lengths, formats in
                    PQsendQueryPrepared(handle, name, Int32(binds.count), values, lengths, formats, 1)
                }
            }
            guard sent == 1 else { return nil }
        }
        guard PQpipelineSync(handle) == 1 else { return nil }
        // Each step's results end with a NULL; the sync's own result ends the pipeline. More
        // NULLs than steps means nothing else is coming (a lost connection).
        var results: [OpaquePointer] = []
        var ends = 0
        while true {
            guard let result = PQgetResult(handle) else {
                ends += 1
                if ends > steps.count || PQstatus(handle) != CONNECTION_OK { break }
                continue
            }
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            results.append(result)
        }
        // Results past the steps' are errors of a connection lost after every step answered (a
        // shutdown between the COMMIT and the sync's answer, say): the steps still ran, and the
        // COMMIT's success must not be reported as a failure. An error that came in place of a
        // step's answer is among the first results, so it is the answer.
        guard results.count >= steps.count else {
            for result in results { PQclear(result) }
            return nil
        }
        // After a failure the server skips the rest (PGRES_PIPELINE_ABORTED): the failure is the answer.
        let answer = results.prefix(steps.count).firstIndex(where: isError) ?? steps.count - 1
        for (index, result) in results.enumerated() where index != answer { PQclear(result) }
        return results[answer]
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
            let message =
                Self.field(result, purse_diag_message_primary())
                ?? Self.errorMessage(of: handle)
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

    private static func sqlState(of result: OpaquePointer) -> SQLState? {
        field(result, purse_diag_sqlstate()).map(SQLState.init)
    }

    private static func field(_ result: OpaquePointer, _ code: Int32) -> String? {
        PQresultErrorField(result, code).map { String(cString: $0) }
    }

    private static func errorMessage(of connection: OpaquePointer) -> String {
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
            throw PGError(
                .server,
                message: "invalid byte sequence for encoding \"UTF8\": 0x00",
                sqlState: SQLState("22021")
            )
        }
    }

    /// Lays the binds out as libpq wants them (pointers, lengths, formats) for one call.
    /// Text values get the NUL terminator libpq reads them by; all point into one buffer that
    /// lives for the duration of `body`.
    private static func withParameters<Result>(
        _ binds: [PostgresBind],
        _ body: (
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
        ) -> Result
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
