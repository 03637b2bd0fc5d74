import PurseModels

/// Stripe's limits on test clocks, and the rule a customer made on one follows: what both the
/// clocks' service and the customers' need, over ``Repositories``.
public enum TestClockRules {
    /// Customers one clock may have.
    public static let customerLimit = 3
    /// How far past the time a clock was created at it may be advanced, with nothing on it that
    /// bills: two years.
    public static let furthestAdvance = 2 * 365 * 86_400
    /// Stripe deletes a clock, and its customers, 30 days after it was created.
    public static let lifetime = 30 * 86_400
    /// The latest time a clock may show: the end of year 9999, as Stripe's timestamps go.
    public static let latestTime = 253_402_300_799

    /// The clock a new customer is made on, locked, so the customer limit holds against
    /// creations racing for the last place (read committed: the count after the lock sees every
    /// customer committed before it).
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

    /// Refuses a time no clock can show.
    static func checkTime(_ time: Int) throws {
        guard (0...latestTime).contains(time) else {
            throw PurseError.invalidParameter("frozen_time", "Invalid timestamp: must be an integer Unix timestamp between 0 and \(latestTime).")
        }
    }
}
