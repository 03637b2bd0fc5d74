import PurseModels

/// Which Purse customer belongs to which signed-in user. The customer is found by the user's
/// email (`GET /v1/customers?email=`), or created on first use. Lookups are shared per user, so
/// two first requests at once make one customer, not two. With a test clock, the customers are
/// the ones on that clock, so a developer can move them through time (a card expiring, keys
/// running out) by advancing it.
actor CustomerDirectory {
    private let purse: PurseSecretAPI
    private let testClock: String?
    private var lookups: [String: Task<String, any Error>] = [:]

    init(purse: PurseSecretAPI, testClock: String? = nil) {
        self.purse = purse
        self.testClock = testClock
    }

    /// The customer id of `user`.
    func customer(for user: DemoUsers.User) async throws -> String {
        if let lookup = lookups[user.name] { return try await lookup.value }
        let (purse, testClock) = (self.purse, self.testClock)
        let lookup = Task { try await Self.findOrCreate(user, onClock: testClock, purse: purse) }
        lookups[user.name] = lookup
        do {
            return try await lookup.value
        } catch {
            lookups[user.name] = nil  // let the next request try again
            throw error
        }
    }

    private static func findOrCreate(_ user: DemoUsers.User, onClock testClock: String?, purse: PurseSecretAPI) async throws -> String {
        // Customers on a clock are listed only by it, as at Stripe.
        let clock = testClock.map { [("test_clock", $0)] } ?? []
        let found = try await purse.get(
            "/v1/customers", query: [("email", user.email), ("limit", "1")] + clock, as: ListObject<Customer>.self
        )
        if let existing = found.data.first { return existing.id }
        return try await purse.post(
            "/v1/customers", [("email", user.email), ("name", user.name.capitalized), ("metadata[demo_user]", user.name)] + clock,
            as: Customer.self
        ).id
    }
}
