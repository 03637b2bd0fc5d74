import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("Lists and keyset pagination")
struct ListTests {
    @Test func newestFirstWithCreationOrderWithinTheSameSecond() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            var ids: [String] = []
            for index in 0..<25 {
                ids.append(try #require(try await api.post("/v1/customers", "name=c\(index)").json["id"]?.stringValue))
            }
            // Many share a second; the order must still be exactly reverse creation order.
            let expected = Array(ids.reversed())

            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let query = "limit=7" + (cursor.map { "&starting_after=\($0)" } ?? "")
                let page = try await api.get("/v1/customers", query: query)
                #expect(page.status == 200)
                let data = try #require(page.json["data"]?.arrayValue)
                seen += data.compactMap { $0["id"]?.stringValue }
                cursor = seen.last
                pages += 1
                if page.json["has_more"] == false { break }
            } while pages < 10
            #expect(seen == expected)
            #expect(pages == 4)

            // Backwards from the end with ending_before.
            let before = try await api.get("/v1/customers", query: "limit=3&ending_before=\(expected[10])")
            #expect(before.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == Array(expected[7..<10]))
            #expect(before.json["has_more"] == true)
            let first = try await api.get("/v1/customers", query: "limit=3&ending_before=\(expected[2])")
            #expect(first.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == Array(expected[0..<2]))
            #expect(first.json["has_more"] == false)
        }
    }

    @Test(arguments: ["limit=0", "limit=101", "limit=-5", "limit=ten"])
    func limitsOutsideOneToAHundredAreRefused(query: String) async throws {
        try await LiveServer.with { server in
            let call = try await server.makeAccount().secret.get("/v1/customers", query: query)
            #expect(call.status == 400)
            #expect(call.error?["param"] == "limit")
        }
    }

    @Test func unknownCursorsAreRefused() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let after = try await api.get("/v1/customers", query: "starting_after=cus_nothere")
            #expect(after.status == 400)
            #expect(after.error?["param"] == "starting_after")
            let before = try await api.get("/v1/customers", query: "ending_before=cus_nothere")
            #expect(before.status == 400)
            #expect(before.error?["param"] == "ending_before")
            let both = try await api.get("/v1/customers", query: "starting_after=a&ending_before=b")
            #expect(both.status == 400)
        }
    }

    @Test func theDefaultLimitIsTenAndUrlIsTheBarePath() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            for _ in 0..<12 { _ = try await api.post("/v1/customers") }
            let page = try await api.get("/v1/customers", query: "email=&created[gte]=0")
            #expect(page.json["data"]?.arrayValue?.count == 10)
            #expect(page.json["has_more"] == true)
            #expect(page.json["url"] == "/v1/customers")
            #expect(page.json["object"] == "list")
        }
    }
}
