import Foundation
import Postgres
import PurseCore
import TestSupport
import Testing

/// Every statement Purse runs on tenant data names its account (docs/sharding.md): on a sharded
/// engine such a statement reaches one shard, and on any engine it cannot read or change another
/// account's rows by a missing condition. PostgreSQL's own record of the statements a server ran
/// (`pg_stat_statements`) while every route is driven is checked, so SQL built in any way is seen.
@Suite(.serialized)
struct TenantScopedStatementTests {
    /// Statements that may span accounts, matched on their text with runs of white space made
    /// one space, each with why. docs/sharding.md says what each becomes on a sharded engine.
    static let crossAccount: [(pattern: String, reason: String)] = [
        (#"FROM api_keys WHERE secret_hash = \$1 AND revoked_at IS NULL$"#, "a secret key names its account"),
        (#"WHERE k\.secret_hash = \$1 AND k\.revoked_at IS NULL"#, "an ephemeral key or session key names its account"),
        (#"FROM setup_intents WHERE id = \$1( FOR UPDATE)?$"#, "the 3D Secure and microdeposits pages are reached by their URL alone"),
        (#"FROM financial_connections_sessions WHERE id = \$1( FOR UPDATE)?$"#, "the test-bank page is reached by its URL alone"),
        (
            #"^UPDATE billing_portal_sessions s SET last_active = \$1 FROM customers c WHERE s\.id = \$2"#,
            "the portal's pages are reached by their URL alone"
        ),
        (
            #"^DELETE FROM ephemeral_keys k WHERE k\.expires < \$1 AND NOT EXISTS \( SELECT 1 FROM customers c JOIN test_clocks t"#,
            "housekeeping sweeps every account"
        ),
        (
            #"^DELETE FROM customer_sessions s WHERE s\.expires_at < \$1 AND NOT EXISTS \( SELECT 1 FROM customers c JOIN test_clocks t"#,
            "housekeeping sweeps every account"
        ),
        (#"^DELETE FROM idempotency_keys WHERE created_at < now\(\)"#, "housekeeping sweeps every account"),
        (
            #"^UPDATE setup_intents SET status = \$\d+, cancellation_reason = \$\d+, updated_at = now\(\) WHERE status IN"#,
            "housekeeping sweeps every account"
        ),
        // pg_stat_statements keeps a statement's constants when its first run was not normalized (seen under TSan).
        (#"FROM setup_intents WHERE status = (\$\d+|'requires_action') AND microdeposits IS NOT NULL"#, "housekeeping sweeps every account"),
        (#"^UPDATE webhook_deliveries d SET claimed_until"#, "the delivery worker serves every account"),
        (#"^UPDATE webhook_deliveries SET state = \$\d+, claimed_until = NULL WHERE seq = \$\d+$"#, "the worker gives up a delivery it claimed"),
        (
            #"^UPDATE webhook_deliveries SET state = \$\d+, attempts = \$\d+, claimed_until = \$\d+, next_attempt_at"#,
            "the worker records its attempt of a delivery it claimed"
        ),
        (#"^SELECT \(SELECT count\(\*\) FROM webhook_deliveries WHERE state = \$1\) AS pending"#, "the delivery queue's gauges"),
        (#"^UPDATE test_clocks SET frozen_time = advancing_to, advancing_to = (NULL|\$\d+) WHERE id IN"#, "the advancer serves every account"),
        (#"^SELECT id, account_id FROM test_clocks WHERE deletes_after <= \$1"#, "housekeeping sweeps every account"),
    ]

    @Test func everyStatementOnTenantDataFiltersByAccount() async throws {
        let cluster = try await TestPostgres.startThrowawayCluster(serverSettings: [
            "shared_preload_libraries": "pg_stat_statements",
            "pg_stat_statements.max": "10000",
            "pg_stat_statements.track_utility": "off",
        ])
        defer { TestPostgres.destroy(cluster) }
        let server = try await LiveServer.start(database: try cluster.configuration())
        do {
            // Migrations ran above; their statements are the schema's, not a request's.
            try await server.pool.query("CREATE EXTENSION pg_stat_statements")
            try await server.pool.query("SELECT pg_stat_statements_reset()")

            let victim = try await TenantIsolationMatrixTests.makeVictim(server)
            let attacker = try await TenantIsolationMatrixTests.makeAttacker(server)
            let findings = try await TenantIsolationMatrixTests.sendEveryProbe(server, victim: victim, attacker: attacker)
            #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
            _ = try await server.sweep()

            let tables = try await server.pool.query(
                """
                SELECT table_name::text AS name FROM information_schema.columns
                WHERE column_name = 'account_id' AND table_schema = current_schema()
                """
            ).map { try $0["name", as: String.self] }
            #expect(tables.count >= 10, "tenant tables found: \(tables)")
            let statements = try await server.pool.query(
                """
                SELECT query FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                """
            ).map { try $0["query", as: String.self] }
            #expect(statements.count >= 50, "statements recorded: \(statements.count)")

            let scope = TenantScope(tenantTables: Set(tables))
            var unscoped: [String] = []
            for statement in statements where !Self.isCrossAccount(statement) {
                let missing = scope.unscopedReferences(in: statement)
                if !missing.isEmpty {
                    unscoped.append("\(missing.joined(separator: ", ")) in:\n\(statement)")
                }
            }
            #expect(unscoped.isEmpty, "Statements on tenant tables without their account:\n\n\(unscoped.joined(separator: "\n\n"))")
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    static func isCrossAccount(_ statement: String) -> Bool {
        let oneLine = statement.replacing(/\s+/, with: " ").trimmingCharacters(in: .whitespaces)
        return crossAccount.contains { oneLine.range(of: $0.pattern, options: .regularExpression) != nil }
    }

    /// The sweeps run on a timer, so a slow run sees them: their text as pg_stat_statements
    /// records it must be on the list.
    @Test func theSweepsAreListedAsCrossAccount() {
        #expect(
            Self.isCrossAccount(
                "DELETE FROM customer_sessions s WHERE s.expires_at < $1 AND NOT EXISTS ( SELECT 1 FROM customers c JOIN test_clocks t ON t.id = c.test_clock"
            ))
        #expect(
            Self.isCrossAccount(
                "DELETE FROM ephemeral_keys k WHERE k.expires < $1 AND NOT EXISTS ( SELECT 1 FROM customers c JOIN test_clocks t ON t.id = c.test_clock"
            ))
        #expect(Self.isCrossAccount("DELETE FROM idempotency_keys WHERE created_at < now() - $1 * interval $2"))
        #expect(Self.isCrossAccount("UPDATE webhook_deliveries SET state = $2, claimed_until = NULL WHERE seq = $1"))
        #expect(
            Self.isCrossAccount("SELECT id, account_id FROM test_clocks WHERE deletes_after <= $1 AND NOT deleted ORDER BY deletes_after LIMIT $2"))
        #expect(!Self.isCrossAccount("DELETE FROM customer_sessions WHERE id = $1"))
        #expect(!Self.isCrossAccount("SELECT id FROM setup_intents WHERE id = $1 AND account_id = $2"))
    }

    @Test func theCheckFindsAMissingAccountCondition() {
        let scope = TenantScope(tenantTables: ["customers", "payment_methods"])
        #expect(scope.unscopedReferences(in: "SELECT id FROM customers WHERE id = $1") == ["customers"])
        #expect(scope.unscopedReferences(in: "SELECT id FROM customers WHERE id = $1 AND account_id = $2").isEmpty)
        #expect(
            scope.unscopedReferences(in: "SELECT p.id FROM payment_methods p JOIN customers c ON c.id = p.customer_id WHERE p.account_id = $1")
                == ["customers c"]
        )
        #expect(
            scope.unscopedReferences(
                in:
                    "SELECT p.id FROM payment_methods p JOIN customers c ON c.id = p.customer_id AND c.account_id = p.account_id WHERE p.account_id = $1"
            ).isEmpty
        )
        #expect(scope.unscopedReferences(in: "UPDATE customers SET name = $1 WHERE id = $2") == ["customers"])
        #expect(scope.unscopedReferences(in: "DELETE FROM payment_methods WHERE id = $1") == ["payment_methods"])
        #expect(scope.unscopedReferences(in: "INSERT INTO customers (id, name) VALUES ($1, $2)") == ["customers"])
        #expect(scope.unscopedReferences(in: "INSERT INTO customers (id, account_id) VALUES ($1, $2)").isEmpty)
        #expect(scope.unscopedReferences(in: "SELECT id FROM accounts WHERE id = $1").isEmpty)
        #expect(
            scope.unscopedReferences(
                in: "SELECT s.id FROM customers s WHERE account_id = $1 AND EXISTS (SELECT 1 FROM payment_methods p WHERE p.customer_id = s.id)"
            ) == ["customers s", "payment_methods p"]
        )
    }
}

/// Which references to tenant tables in one statement carry no condition on their `account_id`.
///
/// A reading of the statement's text, not a parser: a reference is `FROM|JOIN|UPDATE|DELETE FROM t
/// [alias]`, and it is scoped when the statement compares `alias.account_id` (`t.account_id`, or
/// an unqualified `account_id`, without an alias) with `=` or `IN`; an `INSERT INTO t (...)` is
/// scoped when its columns name `account_id`. Purse's statements are written so that this
/// reading is enough.
struct TenantScope {
    let tenantTables: Set<String>

    private static let keywords: Set<String> = [
        "where", "set", "on", "join", "left", "right", "inner", "cross", "using", "order", "group", "limit",
        "for", "returning", "values", "as", "union", "having", "offset", "natural", "full", "window", "select",
    ]

    func unscopedReferences(in statement: String) -> [String] {
        let text = statement.lowercased()
        var missing: [String] = []
        for match in text.matches(of: /\binsert\s+into\s+([a-z_][a-z0-9_]*)\s*\(([^)]*)\)/) {
            let table = String(match.output.1)
            guard tenantTables.contains(table) else { continue }
            let columns = match.output.2.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if !columns.contains("account_id") { missing.append(table) }
        }
        for match in text.matches(of: /\b(?:from|join|update)\s+([a-z_][a-z0-9_]*)(?:\s+(?:as\s+)?([a-z_][a-z0-9_]*))?/) {
            let table = String(match.output.1)
            guard tenantTables.contains(table) else { continue }
            let alias = match.output.2.map(String.init).flatMap { Self.keywords.contains($0) ? nil : $0 }
            let qualifier = NSRegularExpression.escapedPattern(for: alias ?? table)
            // An alias must be named; an unaliased table may also be compared unqualified.
            let named = alias == nil ? "(\\b\(qualifier)\\.|[^.a-z0-9_])" : "\\b\(qualifier)\\."
            let compared = "\(named)account_id\\s*(=|in\\b)|=\\s*\(qualifier)\\.account_id\\b"
            if text.range(of: compared, options: .regularExpression) == nil {
                missing.append(alias.map { "\(table) \($0)" } ?? table)
            }
        }
        return missing
    }
}
