public import PurseModels

/// `/v1/test_helpers/test_clocks` (secret key): clocks that customers created on them live by,
/// so an integration test can move a customer through time without waiting for it.
///
/// An advance answers at once with the clock `advancing`; ``finishAdvances()`` (run by the
/// server's advancer right after, and by its sweep for an advance a stopped process left) makes
/// it `ready` at the new time, with the events Stripe sends for both steps.
public struct TestClockService: Sendable {
    private let database: any Database
    /// Emptied when a clock's customers are deleted, before the response is sent.
    private let caches: ChangeCaches

    /// Stripe's limits: three customers per clock, and, with nothing on the clock that bills,
    /// two years past the time the clock was created at.
    public static let customerLimit = 3
    public static let furthestAdvance = 2 * 365 * 86_400
    /// Stripe deletes a clock, and its customers, 30 days after it was created.
    public static let lifetime = 30 * 86_400
    /// The latest time a clock may show: the end of year 9999, as Stripe's timestamps go.
    static let latestTime = 253_402_300_799

    public init(database: any Database, caches: ChangeCaches) {
        self.database = database
        self.caches = caches
    }

    public func create(_ params: TestClockCreateParameters, by caller: Credential, request: RequestInfo) async throws -> TestClock {
        try Self.checkTime(params.frozenTime)
        if let name = params.name, name.count > 300 {
            throw PurseError.invalidParameter("name", "Invalid string: must be at most 300 characters")
        }
        let now = Clock.now
        let clock = TestClock(
            id: ObjectID.make(.testClock), created: now, deletesAfter: now + Self.lifetime, frozenTime: params.frozenTime,
            name: params.name, advancingTo: nil
        )
        try await database.transaction { repositories in
            try await repositories.testClocks.insert(StoredTestClock(clock: clock, initialFrozenTime: clock.frozenTime), account: caller.accountID)
            try await repositories.events.record(
                NewEvent("test_helpers.test_clock.created", object: try JSONValueEncoder().encode(clock), account: caller.accountID, request: request)
            )
        }
        return clock
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> TestClock {
        try await database.autocommit { try await Self.find(id, account: caller.accountID, lock: false, in: $0).clock }
    }

    public func list(_ params: TestClockListParameters, by caller: Credential) async throws -> Page<TestClock> {
        let pagination = try params.pagination()
        return try await database.autocommit { try await $0.testClocks.list(account: caller.accountID, pagination: pagination) }
    }

    /// Starts an advance to `frozen_time`, later than the clock's time and at most
    /// ``furthestAdvance`` past the time it was created at.
    public func advance(
        _ id: String, _ params: TestClockAdvanceParameters, by caller: Credential, request: RequestInfo
    ) async throws -> TestClock {
        try Self.checkTime(params.frozenTime)
        return try await database.transaction(retryingConflicts: 2) { repositories in
            let stored = try await Self.find(id, account: caller.accountID, lock: true, in: repositories)
            var clock = stored.clock
            guard clock.status == .ready else {
                throw PurseError(
                    .invalidRequest, code: "test_clock_status_invalid",
                    message: "The test clock \(id) is advancing. Wait until it is ready before advancing it again."
                )
            }
            guard params.frozenTime > clock.frozenTime else {
                throw PurseError.invalidParameter(
                    "frozen_time",
                    "The frozen_time must be later than the test clock's current frozen_time (\(clock.frozenTime)): a test clock moves only forward."
                )
            }
            guard params.frozenTime <= stored.initialFrozenTime + Self.furthestAdvance else {
                throw PurseError.invalidParameter(
                    "frozen_time",
                    "A test clock can be advanced at most two years past the frozen_time it was created at "
                        + "(\(stored.initialFrozenTime + Self.furthestAdvance))."
                )
            }
            try await repositories.testClocks.startAdvance(id, account: caller.accountID, to: params.frozenTime)
            clock = TestClock(
                id: clock.id, created: clock.created, deletesAfter: clock.deletesAfter, frozenTime: clock.frozenTime, name: clock.name,
                advancingTo: params.frozenTime
            )
            try await repositories.events.record(
                NewEvent(
                    "test_helpers.test_clock.advancing", object: try JSONValueEncoder().encode(clock), account: caller.accountID,
                    request: request
                )
            )
            return clock
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

    /// Finishes the advances that have started, in every account; returns how many. Credentials
    /// held in memory are forgotten (here, and through NOTIFY in every server): their customers'
    /// time has moved.
    public func finishAdvances() async throws -> Int {
        let finished = try await database.transaction { repositories in
            let finished = try await repositories.testClocks.finishAdvances(limit: 100)
            let encoder = JSONValueEncoder()
            for (clock, account) in finished {
                try await repositories.events.record(
                    NewEvent("test_helpers.test_clock.ready", object: try encoder.encode(clock), account: account, request: nil)
                )
            }
            return finished.count
        }
        if finished > 0 { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return finished
    }

    /// Deletes the clocks past their `deletes_after`, with their customers; returns how many.
    public func sweepExpired() async throws -> Int {
        let expired = try await database.autocommit { try await $0.testClocks.expired(now: Clock.now, limit: 100) }
        var deleted = 0
        for (id, account) in expired {
            deleted += try await database.transaction(retryingConflicts: 2) { repositories in
                // Deleted meanwhile by its account: nothing left to do.
                guard let clock = try await repositories.testClocks.find(id, account: account, lock: true) else { return 0 }
                try await Self.delete(clock.clock, account: account, request: nil, in: repositories)
                return 1
            }
        }
        if deleted > 0 { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return deleted
    }

    /// The clock a new customer is created on: `created` is its time. Locked, so the customer
    /// limit holds against creations racing for the last place.
    static func clockForNewCustomer(_ id: String, account: String, in repositories: Repositories) async throws -> TestClock {
        guard let stored = try await repositories.testClocks.find(id, account: account, lock: true) else {
            throw PurseError.noSuch("test_clock", id, param: "test_clock")
        }
        guard try await repositories.testClocks.customerCount(id, account: account) < customerLimit else {
            throw PurseError.invalidParameter(
                "test_clock", "The test clock \(id) already has \(customerLimit) customers, the most a test clock can have."
            )
        }
        return stored.clock
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

    private static func checkTime(_ time: Int) throws {
        guard (0...latestTime).contains(time) else {
            throw PurseError.invalidParameter("frozen_time", "Invalid timestamp: must be an integer Unix timestamp between 0 and \(latestTime).")
        }
    }
}
