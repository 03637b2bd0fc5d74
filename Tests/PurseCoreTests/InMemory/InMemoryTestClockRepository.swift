import PurseModels

@testable import PurseCore

/// A row of `test_clocks`.
struct TestClockRow: KeysetRow {
    var stored: StoredTestClock
    var account: String
    var deleted = false
    let seq: Int

    var id: String { stored.clock.id }
    var created: Int { stored.clock.created }
}

extension InMemoryState {
    /// The time of the test clock `customer` is on, if any (the LEFT JOIN on `test_clocks`).
    func clockTime(ofCustomer customer: String) -> Int? {
        customers[customer]?.customer.testClock.flatMap { testClocks[$0]?.stored.clock.frozenTime }
    }

    /// The same, while the clock is not deleted (the sweeps' `NOT t.deleted`).
    func liveClockTime(ofCustomer customer: String) -> Int? {
        customers[customer]?.customer.testClock.flatMap { id in testClocks[id].flatMap { $0.deleted ? nil : $0.stored.clock.frozenTime } }
    }
}

/// ``TestClockRepository`` on ``InMemoryDatabase``.
struct InMemoryTestClockRepository: TestClockRepository {
    let database: InMemoryDatabase

    func insert(_ stored: StoredTestClock, account: String) async throws {
        try await database.write { state in
            guard state.testClocks[stored.clock.id] == nil else { throw InMemoryDatabaseError.constraint("test_clocks_pkey") }
            state.testClocks[stored.clock.id] = TestClockRow(stored: stored, account: account, seq: state.nextSeq())
        }
    }

    func find(_ id: String, account: String, lock: Bool) async throws -> StoredTestClock? {
        await database.read { state in
            state.testClocks[id].flatMap { $0.account == account && !$0.deleted ? $0.stored : nil }
        }
    }

    func list(account: String, pagination: Pagination) async throws -> Page<TestClock> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.testClocks.values, where: { $0.account == account && !$0.deleted }, pagination: pagination, noun: "test_clock",
                decode: \.stored.clock
            )
        }
    }

    func startAdvance(_ id: String, account: String, to time: Int) async throws {
        try await database.write { state in
            guard var row = state.testClocks[id], row.account == account else { return }
            guard time > row.stored.clock.frozenTime else { throw InMemoryDatabaseError.constraint("test_clocks_advancing_to_check") }
            row.stored.clock = row.stored.clock.at(row.stored.clock.frozenTime, advancingTo: time)
            state.testClocks[id] = row
        }
    }

    func finishAdvances(limit: Int) async throws -> [(clock: TestClock, account: String)] {
        try await database.write { state in
            let advancing = state.testClocks.values.filter { !$0.deleted && $0.stored.clock.statusDetails.advancing != nil }
                .sorted { $0.id < $1.id }.prefix(limit)
            return advancing.map { row in
                var row = row
                let target = row.stored.clock.statusDetails.advancing!.targetFrozenTime
                row.stored.clock = row.stored.clock.at(target, advancingTo: nil)
                state.testClocks[row.id] = row
                return (row.stored.clock, row.account)
            }
        }
    }

    func markDeleted(_ id: String, account: String) async throws {
        try await database.write { state in
            guard var row = state.testClocks[id], row.account == account else { return }
            row.deleted = true
            row.stored.clock = row.stored.clock.at(row.stored.clock.frozenTime, advancingTo: nil)
            state.testClocks[id] = row
        }
    }

    func expired(now: Int, limit: Int) async throws -> [(id: String, account: String)] {
        await database.read { state in
            state.testClocks.values.filter { !$0.deleted && $0.stored.clock.deletesAfter <= now }
                .sorted { $0.stored.clock.deletesAfter < $1.stored.clock.deletesAfter }.prefix(limit).map { ($0.id, $0.account) }
        }
    }

    func customerCount(_ id: String, account: String) async throws -> Int {
        try await customers(of: id, account: account).count
    }

    func customers(of id: String, account: String) async throws -> [String] {
        await database.read { state in
            state.customers.values.filter { $0.account == account && !$0.deleted && $0.customer.testClock == id }
                .sorted { ($0.created, $0.seq) < ($1.created, $1.seq) }.map(\.id)
        }
    }

    func putOnClock(customer: String, clock id: String, account: String) async throws {
        try await database.write { state in
            guard var row = state.customers[customer], row.account == account, row.customer.testClock == nil else { return }
            guard state.testClocks[id]?.account == account else { throw InMemoryDatabaseError.constraint("customers_test_clock_fkey") }
            row.customer.testClock = id
            state.customers[customer] = row
        }
    }
}
