import Foundation
import TestSupport
import Testing

@testable import Postgres

@Suite("Binds and reads of every supported type")
struct TypeRoundTripTests {
    @Test func textIncludingUnicodeAndQuotes() async throws {
        try await TestPostgres.withDatabase { client in
            let values = ["", "plain", "Grüße, 世界 🎉", "it's \"quoted\" \\ back", "'; DROP TABLE x; --"]
            for value in values {
                let rows = try await client.query("SELECT \(value)::text AS value")
                #expect(try rows[0]["value", as: String.self] == value)
            }
        }
    }

    @Test func nullsOfEveryType() async throws {
        try await TestPostgres.withDatabase { client in
            let text: String? = nil
            let number: Int? = nil
            let flag: Bool? = nil
            let bytes: [UInt8]? = nil
            let date: Date? = nil
            let json: PostgresJSON? = nil
            let array: PostgresTextArray? = nil
            let rows = try await client.query(
                "SELECT \(text) AS t, \(number) AS n, \(flag) AS b, \(bytes) AS y, \(date) AS d, \(json) AS j, \(array) AS a"
            )
            let row = rows[0]
            #expect(try row["t", as: String?.self] == nil)
            #expect(try row["n", as: Int?.self] == nil)
            #expect(try row["b", as: Bool?.self] == nil)
            #expect(try row["y", as: [UInt8]?.self] == nil)
            #expect(try row["d", as: Date?.self] == nil)
            #expect(try row["j", as: PostgresJSON?.self] == nil)
            #expect(try row["a", as: PostgresTextArray?.self] == nil)
            #expect(throws: PGError.self) { try row["t", as: String.self] }
        }
    }

    @Test func integersAndBooleans() async throws {
        try await TestPostgres.withDatabase { client in
            for value in [0, 1, -1, Int.max, Int.min, 4_242] {
                let rows = try await client.query("SELECT \(value) AS value, \(value % 2 == 0) AS even")
                #expect(try rows[0]["value", as: Int.self] == value)
                #expect(try rows[0]["even", as: Bool.self] == (value % 2 == 0))
            }
            let small = try await client.query("SELECT 7::int2 AS a, (-9)::int4 AS b, \(Int32(-5)) AS c")
            #expect(try small[0]["a", as: Int.self] == 7)
            #expect(try small[0]["b", as: Int.self] == -9)
            #expect(try small[0]["c", as: Int32.self] == -5)
        }
    }

    @Test func byteaIncludingZeroBytes() async throws {
        try await TestPostgres.withDatabase { client in
            let bytes: [UInt8] = [0, 1, 2, 255, 0, 39, 92]
            let rows = try await client.query("SELECT \(bytes) AS value, length(\(bytes)) AS size")
            #expect(try rows[0]["value", as: [UInt8].self] == bytes)
            #expect(try rows[0]["size", as: Int.self] == bytes.count)
        }
    }

    @Test func jsonbDocuments() async throws {
        try await TestPostgres.withDatabase { client in
            let json = PostgresJSON(#"{"name": "Zoë", "nested": {"list": [1, 2, null]}}"#)
            let rows = try await client.query("SELECT \(json) AS doc, \(json)->'nested'->'list'->>1 AS second")
            let text = try rows[0]["doc", as: PostgresJSON.self].text
            #expect(text.contains("\"Zoë\""))
            #expect(try rows[0]["second", as: String.self] == "2")
        }
    }

    @Test func timestampsToTheMicrosecond() async throws {
        try await TestPostgres.withDatabase { client in
            let date = Date(timeIntervalSince1970: 1_790_000_000.123456)
            let rows = try await client.query(
                "SELECT \(date) AS value, extract(epoch FROM \(date))::float8 AS epoch, '1999-12-31 23:59:59+00'::timestamptz AS old"
            )
            let read = try rows[0]["value", as: Date.self]
            #expect(abs(read.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
            #expect(abs(try rows[0]["epoch", as: Double.self] - 1_790_000_000.123456) < 0.000_01)
            #expect(try rows[0]["old", as: Date.self] == Date(timeIntervalSince1970: 946_684_799))
        }
    }

    @Test func textArrays() async throws {
        try await TestPostgres.withDatabase { client in
            for elements in [[], ["a"], ["with space", "quote\"", "back\\slash", "comma,", "{brace}", "NULL", ""]] {
                let array = PostgresTextArray(elements)
                let rows = try await client.query("SELECT \(array) AS value, cardinality(\(array)) AS size")
                #expect(try rows[0]["value", as: PostgresTextArray.self].elements == elements)
                #expect(try rows[0]["size", as: Int.self] == elements.count)
            }
        }
    }

    @Test func largeValues() async throws {
        try await TestPostgres.withDatabase { client in
            let text = String(repeating: "ü0123456789", count: 200_000)
            let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let rows = try await client.query("SELECT \(text) AS t, \(bytes) AS b")
            #expect(try rows[0]["t", as: String.self] == text)
            #expect(try rows[0]["b", as: [UInt8].self] == bytes)
        }
    }

    @Test func manyRowsAndColumnsByPosition() async throws {
        try await TestPostgres.withDatabase { client in
            let rows = try await client.query("SELECT g, 'row ' || g FROM generate_series(1, \(1_000)) AS g")
            #expect(rows.count == 1_000)
            #expect(try rows[999].decode(Int.self, at: 0) == 1_000)
            #expect(try rows[0].decode(String.self, at: 1) == "row 1")
            #expect(throws: PGError.self) { try rows[0].decode(Int.self, at: 1) }
        }
    }

    @Test func aTextValueWithNULIsRefusedNotTruncated() async throws {
        try await TestPostgres.withDatabase { client in
            let value = "before\u{0}after"
            let error = await #expect(throws: PGError.self) { try await client.query("SELECT \(value)") }
            #expect(error?.sqlState == SQLState("22021"))
        }
    }

    @Test func aValueThatLooksLikeSQLStaysAValue() async throws {
        try await TestPostgres.withDatabase { client in
            try await client.query("CREATE TABLE notes (body text)")
            let hostile = "x'); DROP TABLE notes; --"
            try await client.query("INSERT INTO notes (body) VALUES (\(hostile))")
            let rows = try await client.query("SELECT body FROM notes")
            #expect(try rows[0]["body", as: String.self] == hostile)
        }
    }

    @Test func fragmentsAreRenumbered() async throws {
        try await TestPostgres.withDatabase { client in
            let filter: PostgresQuery = "g > \(2) AND g < \(6)"
            var query: PostgresQuery = "SELECT count(*) AS n FROM generate_series(\(1), \(10)) AS g WHERE \(filter)"
            query.append(" AND g <> \(4)")
            #expect(query.sql.contains("$3") && query.sql.contains("$4") && query.sql.contains("$5"))
            let rows = try await client.query(query)
            #expect(try rows[0]["n", as: Int.self] == 2)
        }
    }

    @Test func renumberingLeavesQuotedTextAlone() async throws {
        try await TestPostgres.withDatabase { client in
            var query: PostgresQuery = """
                SELECT count(*) AS n, min('$1 café') AS text FROM generate_series(\(1), \(10)) AS g
                WHERE g = ANY(ARRAY[\(1), \(2), \(3), \(4), \(5), \(6), \(7), \(8)]::int[])
                """
            query.append(" AND g <> \(3) AND 'é$2' <> \("$1")")
            #expect(query.sql.hasSuffix(" AND g <> $11 AND 'é$2' <> $12"))
            let rows = try await client.query(query)
            #expect(try rows[0]["n", as: Int.self] == 7)
            #expect(try rows[0]["text", as: String.self] == "$1 café")
        }
    }
}
