import TestSupport
import Testing

@testable import Postgres

/// Fragments appended to a query have their `$n` renumbered after the query's own binds; what
/// only looks like a placeholder (in quotes, dollar quotes, comments, identifiers) must stay as it is.
@Suite("Query text: placeholders and what only looks like them")
struct QueryTextTests {
    @Test(arguments: [
        ("a = $1 AND b = $2", "a = $4 AND b = $5"),
        ("x = $10", "x = $13"),
        ("a = '$1' AND b = $1", "a = '$1' AND b = $4"),
        ("a = 'it''s $1' AND b = $1", "a = 'it''s $1' AND b = $4"),
        (#"a = E'it\'s $1' AND b = $1"#, #"a = E'it\'s $1' AND b = $4"#),
        (#"a = e'\\' AND b = $1"#, #"a = e'\\' AND b = $4"#),
        (#"a = "col$1" AND b = $1"#, #"a = "col$1" AND b = $4"#),
        ("-- $1 in a comment\nx = $1", "-- $1 in a comment\nx = $4"),
        ("/* $1 /* nested $1 */ still $1 */ x = $1", "/* $1 /* nested $1 */ still $1 */ x = $4"),
        ("$$ $1 $$ || $1", "$$ $1 $$ || $4"),
        ("$fn$ it's $1 $fn$ || $1", "$fn$ it's $1 $fn$ || $4"),
        ("$a$ $b$ $1 $b$ $a$ || $2", "$a$ $b$ $1 $b$ $a$ || $5"),
        ("a$1 = $1", "a$1 = $4"),
        ("price * 2 - $1", "price * 2 - $4"),
        ("'€ $1' || $1", "'€ $1' || $4"),
    ])
    func renumbering(fragment: String, expected: String) {
        #expect(PostgresQuery.StringInterpolation.renumber(fragment, by: 3) == expected)
    }

    @Test func aFragmentWithoutBindsIsCopiedAsItIs() {
        let constant = PostgresQuery(unsafeSQL: "status = 'enabled'", binds: [])
        let query: PostgresQuery = "SELECT * FROM t WHERE id = \(1) AND \(constant) AND n = \(2)"
        #expect(query.sql == "SELECT * FROM t WHERE id = $1 AND status = 'enabled' AND n = $2")
        #expect(query.binds.count == 2)
    }

    @Test func aFragmentWithDollarQuotesAndCommentsRunsWithItsOwnBinds() async throws {
        try await TestPostgres.withDatabase { client in
            let fragment = PostgresQuery(
                unsafeSQL: "$q$ $1 $q$ || /* $1 */ $1::text || '$1' -- $1\n",
                binds: [PostgresBind(type: .text, format: .text, bytes: Array("B".utf8))]
            )
            let rows = try await client.query("SELECT \(1) AS one, \(fragment) AS text")
            #expect(try rows[0]["one", as: Int.self] == 1)
            #expect(try rows[0]["text", as: String.self] == " $1 B$1")
        }
    }

    @Test func theErrorsDescriptionHoldsNoRowValues() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE people (email text UNIQUE)")
            try await client.query("INSERT INTO people VALUES (\("jenny.secret@example.com"))")
            let duplicate = await #expect(throws: PGError.self) {
                try await client.query("INSERT INTO people VALUES (\("jenny.secret@example.com"))")
            }
            let badInput = await #expect(throws: PGError.self) { try await client.query("SELECT 'secret-text'::uuid") }
            for error in [duplicate, badInput].compactMap({ $0 }) {
                #expect(!String(describing: error).contains("secret"))
                #expect(String(reflecting: error).contains("secret"), "the detail is there on request")
            }
            #expect(String(describing: try #require(duplicate)) == "PGError.server: SQLSTATE 23505 (unique_violation) [constraint people_email_key]")
        }
    }
}
