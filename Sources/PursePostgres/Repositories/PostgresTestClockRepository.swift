import Postgres
import PurseCore
import PurseModels

/// ``TestClockRepository`` on the `test_clocks` table (and the `test_clock` column of
/// `customers`).
struct PostgresTestClockRepository: TestClockRepository {
    let connection: PostgresConnection

    private static let columns = "id, created, name, initial_frozen_time, frozen_time, advancing_to, deletes_after"

    private static let list = KeysetList(table: "test_clocks", columns: columns, noun: "test_clock")

    func insert(_ stored: StoredTestClock, account: String) async throws {
        let clock = stored.clock
        try await connection.query(
            """
            INSERT INTO test_clocks (id, account_id, created, name, initial_frozen_time, frozen_time, deletes_after)
            VALUES (\(clock.id), \(account), \(clock.created), \(clock.name), \(stored.initialFrozenTime), \(clock.frozenTime),
                    \(clock.deletesAfter))
            """
        )
    }

    func find(_ id: String, account: String, lock: Bool) async throws -> StoredTestClock? {
        var query: PostgresQuery = """
            SELECT \(unsafeSQL: Self.columns) FROM test_clocks WHERE id = \(id) AND account_id = \(account) AND NOT deleted
            """
        if lock { query.append(" FOR UPDATE") }
        return try await connection.query(query).first.map(Self.stored)
    }

    func list(account: String, pagination: Pagination) async throws -> Page<TestClock> {
        try await Self.list.page(
            on: connection, where: "account_id = \(account) AND NOT deleted", pagination: pagination, decode: { try Self.stored($0).clock }
        )
    }

    func startAdvance(_ id: String, account: String, to time: Int) async throws {
        try await connection.query("UPDATE test_clocks SET advancing_to = \(time) WHERE id = \(id) AND account_id = \(account)")
    }

    func finishAdvances(limit: Int) async throws -> [(clock: TestClock, account: String)] {
        // Across accounts: the advancer's sweep. SKIP LOCKED leaves a clock another instance is
        // finishing, or that one of its account's calls holds, to that transaction.
        let rows = try await connection.query(
            """
            UPDATE test_clocks SET frozen_time = advancing_to, advancing_to = NULL
            WHERE id IN (
                SELECT id FROM test_clocks WHERE advancing_to IS NOT NULL AND NOT deleted
                ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED
            )
            RETURNING account_id, \(unsafeSQL: Self.columns)
            """
        )
        return try rows.map { (try Self.stored($0).clock, try $0["account_id"]) }
    }

    func markDeleted(_ id: String, account: String) async throws {
        try await connection.query(
            "UPDATE test_clocks SET deleted = true, advancing_to = NULL WHERE id = \(id) AND account_id = \(account)"
        )
    }

    func expired(now: Int, limit: Int) async throws -> [(id: String, account: String)] {
        // Across accounts: the maintenance sweep.
        try await connection.query(
            "SELECT id, account_id FROM test_clocks WHERE deletes_after <= \(now) AND NOT deleted ORDER BY deletes_after LIMIT \(limit)"
        ).map { (try $0["id"], try $0["account_id"]) }
    }

    func customerCount(_ id: String, account: String) async throws -> Int {
        let rows = try await connection.query(
            "SELECT count(*)::bigint AS n FROM customers WHERE test_clock = \(id) AND account_id = \(account) AND NOT deleted"
        )
        return try rows.first?["n"] ?? 0
    }

    func customers(of id: String, account: String) async throws -> [String] {
        try await connection.query(
            "SELECT id FROM customers WHERE test_clock = \(id) AND account_id = \(account) AND NOT deleted ORDER BY created, seq"
        ).map { try $0["id"] }
    }

    func putOnClock(customer: String, clock id: String, account: String) async throws {
        try await connection.query(
            "UPDATE customers SET test_clock = \(id) WHERE id = \(customer) AND account_id = \(account) AND test_clock IS NULL"
        )
    }

    private static func stored(_ row: PostgresRow) throws -> StoredTestClock {
        StoredTestClock(
            clock: TestClock(
                id: try row["id"], created: try row["created"], deletesAfter: try row["deletes_after"], frozenTime: try row["frozen_time"],
                name: try row["name"], advancingTo: try row["advancing_to"]
            ),
            initialFrozenTime: try row["initial_frozen_time"]
        )
    }
}
