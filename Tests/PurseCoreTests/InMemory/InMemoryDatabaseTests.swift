import PurseModels
import Testing

@testable import PurseCore

/// The in-memory database keeps the promises of ``Database`` the domain's tests rely on.
@Suite("In-memory database")
struct InMemoryDatabaseTests {
    private struct Boom: Error {}

    private static func customer(_ id: String) -> Customer {
        Customer(id: id, created: Clock.now, invoicePrefix: "ABCDEFGH")
    }

    private static func created(_ id: String) -> NewEvent {
        NewEvent("customer.created", object: .object(JSONObject([("id", .string(id))])), account: "acct_1", request: nil)
    }

    @Test func aTransactionThatThrowsLeavesNothingBehind() async throws {
        let database = InMemoryDatabase()
        await #expect(throws: Boom.self) {
            try await database.transaction { repositories in
                try await repositories.customers.insert(Self.customer("cus_1"), account: "acct_1", announcing: Self.created("cus_1"))
                throw Boom()
            }
        }
        #expect(await database.snapshot().customers.isEmpty)
    }

    @Test func autocommitKeepsEachWrite() async throws {
        let database = InMemoryDatabase()
        await #expect(throws: Boom.self) {
            try await database.autocommit { repositories in
                try await repositories.customers.insert(Self.customer("cus_1"), account: "acct_1", announcing: Self.created("cus_1"))
                throw Boom()
            }
        }
        #expect(await database.snapshot().customers.keys.sorted() == ["cus_1"])
    }

    @Test func aDefaultThatIsNotAttachedFailsTheCommit() async throws {
        let database = InMemoryDatabase()
        try await database.autocommit { try await $0.customers.insert(Self.customer("cus_1"), account: "acct_1", announcing: Self.created("cus_1")) }
        var customer = Self.customer("cus_1")
        customer.invoiceSettings.defaultPaymentMethod = "pm_missing"
        let stored = StoredCustomer(customer: customer, selectedOption: .paymentMethod)
        await #expect(throws: InMemoryDatabaseError.constraint("customers_default_is_attached")) {
            try await database.transaction { try await $0.customers.update(stored, account: "acct_1") }
        }
        #expect(await database.snapshot().customers["cus_1"]?.selectedOption == nil)
    }

    @Test func aNestedUnitOfWorkIsRefusedInsteadOfWaitingForever() async throws {
        let database = InMemoryDatabase()
        await #expect(throws: InMemoryDatabaseError.nestedUnitOfWork) {
            try await database.transaction { _ in try await database.autocommit { _ in } }
        }
    }

    @Test func unitsOfWorkRunOneAtATime() async throws {
        let database = InMemoryDatabase()
        try await database.autocommit { try await $0.customers.insert(Self.customer("cus_1"), account: "acct_1", announcing: Self.created("cus_1")) }
        // Each reads the email and writes it back longer: interleaved, some appends would be lost.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await database.transaction { repositories in
                        var stored = try #require(try await repositories.customers.lockLive("cus_1", visibleTo: Visibility(account: "acct_1")))
                        await Task.yield()
                        stored.customer.email = (stored.customer.email ?? "") + "x"
                        try await repositories.customers.update(stored, account: "acct_1")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await database.snapshot().customers["cus_1"]?.customer.email?.count == 20)
    }
}
