/// Where the domain's aggregates are kept, reached through their repositories.
///
/// A service asks for one unit of work at a time: a ``transaction(retryingConflicts:_:)`` for
/// anything that writes more than one statement's worth (all of it is kept, or none), or
/// ``autocommit(_:)`` for reads and single-statement writes. Either way the body gets the
/// ``Repositories`` of one connection. PostgreSQL's implementation is `PostgresDatabase`, in
/// PursePostgres, which throws a ``DatabaseError`` for what the domain has an answer to; the
/// domain's tests use an in-memory one.
///
/// A body runs on its caller's executor, and so do its statements on PostgreSQL, with no hop.
/// ``Repositories`` is not `Sendable` (PostgreSQL's hold a connection that one task at a time
/// may use), so a body cannot hand them to another task. Give a body no capture list (copy into
/// a `let` instead): Swift 6.3 infers such a closure `@concurrent` (swiftlang/swift#87097), and
/// the compiler then refuses it, as it would have to send the repositories to another executor.
public protocol Database: Sendable {
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// With `retryingConflicts`, a transaction the database gave up on because of another (a
    /// deadlock, a serialization failure) runs again, up to that many more times; `body` must
    /// then keep every effect inside the transaction.
    func transaction<Result: Sendable>(
        retryingConflicts: Int,
        _ body: @Sendable (Repositories) async throws -> Result
    ) async throws -> Result

    /// Runs `body` with each statement committed on its own: for reads, and for writes of one
    /// statement.
    func autocommit<Result: Sendable>(_ body: @Sendable (Repositories) async throws -> Result) async throws -> Result

    /// Runs `body` in one transaction that every unit of work the task asks for meanwhile joins:
    /// all of it is kept when `body` returns, none when it throws. A joining unit is a savepoint
    /// of it, so one that throws leaves nothing behind and the rest goes on, as it would have
    /// on its own. What makes a request exactly once per idempotency key: the key's answer
    /// commits with the request's effects (``IdempotencyService/perform(_:_:)``).
    ///
    /// With `retryingConflicts`, conflicts in any joining unit run all of `body` again.
    func enclosingTransaction<Result: Sendable>(
        retryingConflicts: Int,
        _ body: @Sendable (Repositories) async throws -> Result
    ) async throws -> Result
}

extension Database {
    /// ``transaction(retryingConflicts:_:)`` without retries.
    public func transaction<Result: Sendable>(_ body: @Sendable (Repositories) async throws -> Result) async throws -> Result {
        try await transaction(retryingConflicts: 0, body)
    }
}

/// The repositories of one unit of work: every statement they run belongs to it.
public struct Repositories {
    public let accounts: any AccountRepository
    public let billingPortal: any BillingPortalRepository
    public let customerCredentials: any CustomerCredentialRepository
    public let customers: any CustomerRepository
    public let events: any EventRepository
    public let financialConnections: any FinancialConnectionsRepository
    public let idempotency: any IdempotencyRepository
    public let masterKeySeals: any MasterKeySealRepository
    public let paymentMethods: any PaymentMethodRepository
    public let setupIntents: any SetupIntentRepository
    public let sheetSettings: any SheetSettingsRepository
    public let testClocks: any TestClockRepository
    public let webhooks: any WebhookRepository

    public init(
        accounts: any AccountRepository,
        billingPortal: any BillingPortalRepository,
        customerCredentials: any CustomerCredentialRepository,
        customers: any CustomerRepository,
        events: any EventRepository,
        financialConnections: any FinancialConnectionsRepository,
        idempotency: any IdempotencyRepository,
        masterKeySeals: any MasterKeySealRepository,
        paymentMethods: any PaymentMethodRepository,
        setupIntents: any SetupIntentRepository,
        sheetSettings: any SheetSettingsRepository,
        testClocks: any TestClockRepository,
        webhooks: any WebhookRepository
    ) {
        self.accounts = accounts
        self.billingPortal = billingPortal
        self.customerCredentials = customerCredentials
        self.customers = customers
        self.events = events
        self.financialConnections = financialConnections
        self.idempotency = idempotency
        self.masterKeySeals = masterKeySeals
        self.paymentMethods = paymentMethods
        self.setupIntents = setupIntents
        self.sheetSettings = sheetSettings
        self.testClocks = testClocks
        self.webhooks = webhooks
    }
}
