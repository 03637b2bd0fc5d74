import PurseModels

@testable import PurseCore

/// ``Database`` in memory, for the domain's tests: the rows of every table the repositories own,
/// kept by one actor.
///
/// Units of work run one at a time, in the order they ask (a connection each, with no other
/// transaction in between). A ``transaction(retryingConflicts:_:)`` whose body throws leaves the
/// rows exactly as they were; ``autocommit(_:)`` keeps each write as it is made. The constraints a
/// service could break are checked as PostgreSQL checks them: a customer's default must be
/// attached to it (at commit), a selected method needs a default, one default settings per
/// account, the foreign keys of setup intents, payment methods, credentials and webhook
/// attempts, and the unique keys of accounts and API keys. Foreign keys to `accounts` are not
/// checked: the harness's account has no row.
actor InMemoryDatabase: Database {
    private var state = InMemoryState()
    /// The unit of work running, and those waiting for it to finish.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var inTransaction = false

    /// The unit of work the current task runs, to refuse a nested one (it would wait for itself).
    @TaskLocal private static var running: ObjectIdentifier?
    /// The database whose enclosing transaction the current task runs in: units join it.
    @TaskLocal private static var enclosed: ObjectIdentifier?

    init() {}

    // PurseCore's async functions run on their caller's executor (NonisolatedNonsendingByDefault),
    // so the protocol's requirements, and their bodies, are spelled so here.
    nonisolated(nonsending) func transaction<Result: Sendable>(
        retryingConflicts: Int, _ body: nonisolated(nonsending) @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        try await run(transactional: true, body)
    }

    nonisolated(nonsending) func autocommit<Result: Sendable>(
        _ body: nonisolated(nonsending) @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        try await run(transactional: false, body)
    }

    nonisolated(nonsending) func enclosingTransaction<Result: Sendable>(
        retryingConflicts: Int, _ body: nonisolated(nonsending) @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        try await run(transactional: true, enclosing: true, body)
    }

    private func run<Result: Sendable>(
        transactional: Bool, enclosing: Bool = false,
        _ body: nonisolated(nonsending) @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        if Self.enclosed == ObjectIdentifier(self) { return try await savepoint(body) }
        guard Self.running != ObjectIdentifier(self) else { throw InMemoryDatabaseError.nestedUnitOfWork }
        await acquire()
        defer { release() }
        let snapshot = state
        inTransaction = transactional
        defer { inTransaction = false }
        do {
            let result = try await Self.$running.withValue(ObjectIdentifier(self)) {
                try await Self.$enclosed.withValue(enclosing ? ObjectIdentifier(self) : nil) { try await body(repositories) }
            }
            if transactional { try state.checkDeferredConstraints() }
            return result
        } catch {
            if transactional { state = snapshot }
            throw error
        }
    }

    /// A unit of work joining the enclosing transaction: undone alone when it throws.
    private func savepoint<Result: Sendable>(
        _ body: nonisolated(nonsending) @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        let snapshot = state
        do {
            return try await body(repositories)
        } catch {
            state = snapshot
            throw error
        }
    }

    private nonisolated var repositories: Repositories {
        Repositories(
            accounts: InMemoryAccountRepository(database: self),
            billingPortal: InMemoryBillingPortalRepository(database: self),
            customerCredentials: InMemoryCustomerCredentialRepository(database: self),
            customers: InMemoryCustomerRepository(database: self), events: InMemoryEventRepository(database: self),
            financialConnections: InMemoryFinancialConnectionsRepository(database: self),
            idempotency: InMemoryIdempotencyRepository(database: self),
            masterKeySeals: InMemoryMasterKeySealRepository(database: self),
            paymentMethods: InMemoryPaymentMethodRepository(database: self),
            setupIntents: InMemorySetupIntentRepository(database: self), sheetSettings: InMemorySheetSettingsRepository(database: self),
            testClocks: InMemoryTestClockRepository(database: self),
            webhooks: InMemoryWebhookRepository(database: self)
        )
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the database to the next unit of work waiting, if any (it stays busy then).
    private func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }

    // MARK: - For the repositories

    /// Reads the rows.
    func read<T: Sendable>(_ body: @Sendable (InMemoryState) throws -> T) rethrows -> T {
        try body(state)
    }

    /// One statement's change: undone when it throws; outside a transaction, it is committed at
    /// once, so the deferred constraints are checked at once too.
    func write<T: Sendable>(_ body: @Sendable (inout InMemoryState) throws -> T) throws -> T {
        let before = state
        do {
            let result = try body(&state)
            if !inTransaction { try state.checkDeferredConstraints() }
            return result
        } catch {
            state = before
            throw error
        }
    }

    // MARK: - For the tests

    /// Moves the database's clock (`now()`, which `updated_at` is judged by) forward.
    func advanceClock(by seconds: Int) {
        state.clockOffset += seconds
    }

    /// Every event recorded, oldest first.
    func recordedEvents() -> [NewEvent] {
        state.events.values.sorted { ($0.created, $0.seq) < ($1.created, $1.seq) }.map(\.event)
    }

    /// The stored rows, to look at what a service wrote.
    func snapshot() -> InMemoryState { state }
}

/// What PostgreSQL would refuse, or what would block forever.
struct InMemoryDatabaseError: Error, Equatable, CustomStringConvertible {
    let description: String

    static let nestedUnitOfWork = InMemoryDatabaseError(
        description: "A unit of work asked for another while it held the database: on PostgreSQL it would hold two connections"
    )

    static func constraint(_ name: String) -> InMemoryDatabaseError {
        InMemoryDatabaseError(description: "violates constraint \(name)")
    }
}

/// The tables, as the repositories see them.
struct InMemoryState: Sendable {
    var accounts: [String: AccountRow] = [:]
    var apiKeys: [String: APIKeyRow] = [:]
    var ephemeralKeys: [String: EphemeralKeyRow] = [:]
    var customerSessions: [String: CustomerSessionRow] = [:]
    var idempotencyKeys: [IdempotencyKeyID: IdempotencyKeyRow] = [:]
    var webhookEndpoints: [String: WebhookEndpointRow] = [:]
    /// By `seq`, the delivery's id.
    var webhookDeliveries: [Int: WebhookDeliveryRow] = [:]
    var webhookAttempts: [String: WebhookAttemptRow] = [:]
    var customers: [String: CustomerRow] = [:]
    var paymentMethods: [String: PaymentMethodRow] = [:]
    var setupIntents: [String: SetupIntentRow] = [:]
    var sheetSettings: [String: SheetSettingsRow] = [:]
    var events: [String: EventRow] = [:]
    var financialConnectionsSessions: [String: StoredFinancialConnectionsSession] = [:]
    var masterKeySeals: [String: MasterKeySeal] = [:]
    var portalConfigurations: [String: PortalConfigurationRow] = [:]
    var portalSessions: [String: PortalSessionRow] = [:]
    var testClocks: [String: TestClockRow] = [:]
    /// The identity every table's `seq` is drawn from (one sequence is as good as one a table).
    var lastSeq = 0
    /// Seconds added to the wall clock for `now()`.
    var clockOffset = 0

    var now: Int { Clock.now + clockOffset }

    mutating func nextSeq() -> Int {
        lastSeq += 1
        return lastSeq
    }

    /// `customers_default_is_attached`, checked at commit: the default is a method attached to
    /// the same customer.
    func checkDeferredConstraints() throws {
        for row in customers.values {
            guard let method = row.customer.invoiceSettings.defaultPaymentMethod else { continue }
            guard paymentMethods[method]?.customerID == row.customer.id else {
                throw InMemoryDatabaseError.constraint("customers_default_is_attached")
            }
        }
    }
}

/// A row that lists newest first by (`created`, `seq`).
protocol KeysetRow: Sendable {
    var id: String { get }
    var created: Int { get }
    var seq: Int { get }
}

extension KeysetRow {
    fileprivate var position: (Int, Int) { (created, seq) }
}

/// PursePostgres's `KeysetList` over rows in memory: newest first; `starting_after` the rows older than the
/// cursor, `ending_before` the newer ones (still shown newest first); a cursor that is not among
/// the rows the filter matches is `resource_missing`.
enum InMemoryKeysetList {
    static func page<Row: KeysetRow, Element>(
        _ rows: some Sequence<Row>, where filter: (Row) -> Bool, pagination: Pagination, noun: String,
        decode: (Row) throws -> Element
    ) throws -> Page<Element> {
        let matching = rows.filter(filter)
        var selected = matching.sorted { $0.position > $1.position }
        if let cursor = pagination.cursor {
            let (id, param) =
                switch cursor {
                case .after(let id): (id, "starting_after")
                case .before(let id): (id, "ending_before")
                }
            guard let position = matching.first(where: { $0.id == id })?.position else {
                throw PurseError(.invalidRequest, code: "resource_missing", message: "No such \(noun): '\(id)'", param: param)
            }
            if case .after = cursor {
                selected = selected.filter { $0.position < position }
            } else {
                // The newest `limit` rows after the cursor's are the ones just above it.
                let newer = selected.filter { $0.position > position }
                let page = Array(newer.suffix(pagination.limit))
                return Page(data: try page.map(decode), hasMore: newer.count > pagination.limit)
            }
        }
        return Page(data: try selected.prefix(pagination.limit).map(decode), hasMore: selected.count > pagination.limit)
    }
}

extension RangeFilter {
    /// PursePostgres's `condition(on:)` as a predicate.
    func contains(_ value: Int) -> Bool {
        if let gt, !(value > gt) { return false }
        if let gte, !(value >= gte) { return false }
        if let lt, !(value < lt) { return false }
        if let lte, !(value <= lte) { return false }
        return true
    }
}
