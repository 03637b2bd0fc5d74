public import PurseModels

/// A test clock as kept: the object, and what the rules need besides.
public struct StoredTestClock: Sendable, Equatable {
    public var clock: TestClock
    /// The frozen time the clock was created at.
    public var initialFrozenTime: Int

    public init(clock: TestClock, initialFrozenTime: Int) {
        self.clock = clock
        self.initialFrozenTime = initialFrozenTime
    }
}

/// The test clocks of every account.
public protocol TestClockRepository {
    func insert(_ clock: StoredTestClock, account: String) async throws

    /// A clock of `account` that is not deleted; `lock` keeps its row locked until the
    /// transaction ends, as every change to the clock or to the customers on it does first.
    func find(_ id: String, account: String, lock: Bool) async throws -> StoredTestClock?

    /// Clocks of `account` that are not deleted, newest first.
    func list(account: String, pagination: Pagination) async throws -> Page<TestClock>

    /// Starts an advance of a locked, ready clock to `time`.
    func startAdvance(_ id: String, account: String, to time: Int) async throws

    /// Finishes up to `limit` advances that have started, in every account, skipping clocks
    /// another transaction holds: their frozen time becomes the target and they are ready
    /// again. Returns each clock as it now is, with its account.
    func finishAdvances(limit: Int) async throws -> [(clock: TestClock, account: String)]

    /// Marks a locked clock deleted.
    func markDeleted(_ id: String, account: String) async throws

    /// Up to `limit` clocks, in every account, whose `deletes_after` has passed at `now`.
    func expired(now: Int, limit: Int) async throws -> [(id: String, account: String)]

    /// How many live customers the clock has.
    func customerCount(_ id: String, account: String) async throws -> Int

    /// The ids of the clock's live customers.
    func customers(of id: String, account: String) async throws -> [String]

    /// Puts a locked customer on no clock on the clock `id`, for good.
    func putOnClock(customer: String, clock id: String, account: String) async throws
}
