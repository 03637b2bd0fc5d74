public import PurseModels

/// `/v1/test_helpers/test_clocks` (secret key): clocks that customers made on them live by, so an
/// integration test can move a customer through time without waiting for it.
///
/// An advance answers at once with the clock `advancing`; ``finishAdvances()`` (run by the
/// server's advancer once the advance's transaction commits, and on a timer for one a stopped
/// server left) makes it `ready` at the new time, with the events Stripe sends for both steps,
/// once what waited too long by the new time has ended (the setup intents of its customers).
/// Deleting a clock deletes its customers through ``CustomerService``'s rule (never the other way).
public struct TestClockService: Sendable {
    private let database: any Database
    /// Emptied when a clock moves or its customers are deleted: credentials held in memory carry
    /// their customer's clock time.
    private let caches: ChangeCaches
    /// Ends the setup intents an advance leaves waiting too long.
    private let setupIntents: SetupIntentService
    /// How many clocks one sweep's transaction handles; a sweep goes on until a batch is short.
    static let batch = 100

    public init(database: any Database, caches: ChangeCaches, setupIntents: SetupIntentService) {
        self.database = database
        self.caches = caches
        self.setupIntents = setupIntents
    }

    public func create(_ params: TestClockCreateParameters, by caller: Credential, request: RequestInfo) async throws -> TestClock {
        try TestClockRules.checkTime(params.frozenTime)
        if let name = params.name, name.count > 300 {
            throw PurseError.invalidParameter("name", "Invalid string: must be at most 300 characters")
        }
        let now = Clock.now
        let clock = TestClock(
            id: ObjectID.make(.testClock), created: now, deletesAfter: now + TestClockRules.lifetime, frozenTime: params.frozenTime,
            name: params.name, advancingTo: nil
        )
        let customer = params.customer
        // The customer's credentials held in memory carry its time, which is now the clock's.
        defer { if customer != nil { caches.invalidate(topic: ChangeCaches.credentialsTopic) } }
        try await database.transaction(retryingConflicts: 2) { repositories in
            try await repositories.testClocks.insert(StoredTestClock(clock: clock, initialFrozenTime: clock.frozenTime), account: caller.accountID)
            try await repositories.events.record(
                NewEvent("test_helpers.test_clock.created", object: try JSONValueEncoder().encode(clock), account: caller.accountID, request: request)
            )
            if let customer {
                try await Self.putOnClock(customer, clock: clock, account: caller.accountID, request: request, in: repositories)
            }
        }
        return clock
    }

    /// Puts an existing customer on a new clock, for good. Its waiting setup intents start their
    /// waits over at the clock's time, and its keys and sessions, timed by the wall clock, are
    /// revoked: new ones live by the clock. A customer already on a clock stays there.
    private static func putOnClock(
        _ id: String, clock: TestClock, account: String, request: RequestInfo, in repositories: Repositories
    ) async throws {
        // The intents first, then the customer: the order a confirmation locks them in.
        try await repositories.setupIntents.joinClock(
            customer: id, account: account, time: clock.frozenTime, resent: .sent(now: clock.frozenTime)
        )
        guard let stored = try await repositories.customers.lockLive(id, visibleTo: Visibility(account: account)) else {
            throw PurseError.noSuch("customer", id, param: "customer")
        }
        if let current = stored.customer.testClock {
            throw PurseError.invalidParameter(
                "customer", "The customer \(id) is already on the test clock \(current): a customer stays on its clock for good."
            )
        }
        try await repositories.testClocks.putOnClock(customer: id, clock: clock.id, account: account)
        _ = try await EphemeralKeyService.revokeAll(customer: id, account: account, in: repositories)
        _ = try await CustomerSessionService.revokeAll(customer: id, account: account, in: repositories)
        var moved = stored.customer
        moved.testClock = clock.id
        if let event = try NewEvent("customer.updated", from: stored.customer, to: moved, account: account, request: request) {
            try await repositories.events.record(event)
        }
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> TestClock {
        try await database.autocommit { try await Self.find(id, account: caller.accountID, lock: false, in: $0).clock }
    }

    public func list(_ params: PageParameters, by caller: Credential) async throws -> Page<TestClock> {
        let pagination = try params.pagination()
        return try await database.autocommit { try await $0.testClocks.list(account: caller.accountID, pagination: pagination) }
    }

    /// Starts an advance to `frozen_time`, later than the clock's time and at most
    /// ``TestClockRules/furthestAdvance`` past the time it was created at.
    public func advance(
        _ id: String, _ params: TestClockAdvanceParameters, by caller: Credential, request: RequestInfo
    ) async throws -> TestClock {
        try TestClockRules.checkTime(params.frozenTime)
        return try await database.transaction(retryingConflicts: 2) { repositories in
            let stored = try await Self.find(id, account: caller.accountID, lock: true, in: repositories)
            let clock = stored.clock
            guard clock.status == .ready else {
                throw PurseError(.invalidRequest, message: "The test clock \(id) is advancing. Wait until it is ready before advancing it again.")
            }
            guard params.frozenTime > clock.frozenTime else {
                throw PurseError.invalidParameter(
                    "frozen_time",
                    "The frozen_time must be later than the test clock's current frozen_time (\(clock.frozenTime)): a test clock moves only forward."
                )
            }
            let furthest = stored.initialFrozenTime + TestClockRules.furthestAdvance
            guard params.frozenTime <= furthest else {
                throw PurseError.invalidParameter(
                    "frozen_time", "A test clock can be advanced at most two years past the frozen_time it was created at (\(furthest))."
                )
            }
            try await repositories.testClocks.startAdvance(id, account: caller.accountID, to: params.frozenTime)
            let advancing = clock.at(clock.frozenTime, advancingTo: params.frozenTime)
            try await repositories.events.record(
                NewEvent(
                    "test_helpers.test_clock.advancing", object: try JSONValueEncoder().encode(advancing), account: caller.accountID,
                    request: request
                )
            )
            return advancing
        }
    }

    /// Deletes the clock and every customer on it, as Stripe does.
    public func delete(_ id: String, by caller: Credential, request: RequestInfo) async throws -> DeletedObject {
        defer { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return try await database.transaction(retryingConflicts: 2) { repositories in
            let clock = try await Self.find(id, account: caller.accountID, lock: true, in: repositories).clock
            try await Self.delete(clock, account: caller.accountID, request: request, in: repositories)
            return DeletedObject(id: id, object: clock.object)
        }
    }

    /// Finishes the advances that have started, in every account; returns how many.
    public func finishAdvances() async throws -> Int {
        var finished = 0
        while true {
            let batch = try await database.transaction { repositories in
                let moved = try await repositories.testClocks.finishAdvances(limit: Self.batch)
                let encoder = JSONValueEncoder()
                for (clock, account) in moved {
                    _ = try await setupIntents.lapse(.testClock(id: clock.id, account: account, time: clock.frozenTime), in: repositories)
                    try await repositories.events.record(
                        NewEvent("test_helpers.test_clock.ready", object: try encoder.encode(clock), account: account, request: nil)
                    )
                }
                return moved.count
            }
            finished += batch
            if batch < Self.batch { break }
        }
        if finished > 0 { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return finished
    }

    /// Deletes the clocks past their `deletes_after`, with their customers; returns how many.
    public func sweepExpired() async throws -> Int {
        var deleted = 0
        while true {
            let expired = try await database.autocommit { try await $0.testClocks.expired(now: Clock.now, limit: Self.batch) }
            for (id, account) in expired {
                deleted += try await database.transaction(retryingConflicts: 2) { repositories in
                    // Deleted meanwhile by its account: nothing left to do.
                    guard let clock = try await repositories.testClocks.find(id, account: account, lock: true) else { return 0 }
                    try await Self.delete(clock.clock, account: account, request: nil, in: repositories)
                    return 1
                }
            }
            if expired.count < Self.batch { break }
        }
        if deleted > 0 { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return deleted
    }

    private static func delete(_ clock: TestClock, account: String, request: RequestInfo?, in repositories: Repositories) async throws {
        for customer in try await repositories.testClocks.customers(of: clock.id, account: account) {
            guard let stored = try await repositories.customers.lockLive(customer, visibleTo: Visibility(account: account)) else { continue }
            try await CustomerService.delete(stored.customer, account: account, request: request, in: repositories)
        }
        try await repositories.testClocks.markDeleted(clock.id, account: account)
        try await repositories.events.record(
            NewEvent("test_helpers.test_clock.deleted", object: try JSONValueEncoder().encode(clock), account: account, request: request)
        )
    }

    private static func find(_ id: String, account: String, lock: Bool, in repositories: Repositories) async throws -> StoredTestClock {
        guard let stored = try await repositories.testClocks.find(id, account: account, lock: lock) else {
            throw PurseError.noSuch("test_clock", id)
        }
        return stored
    }
}
