import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("Two accounts see nothing of each other")
struct IsolationTests {
    @Test func customersAndEventsStayInTheirAccount() async throws {
        try await LiveServer.with { server in
            let alice = try await server.makeAccount(name: "Alice").secret
            let bob = try await server.makeAccount(name: "Bob").secret
            let id = try #require(try await alice.post("/v1/customers", "email=a%40a.io").json["id"]?.stringValue)

            #expect(try await bob.get("/v1/customers/\(id)").status == 404)
            #expect(try await bob.post("/v1/customers/\(id)", "name=stolen").status == 404)
            #expect(try await bob.delete("/v1/customers/\(id)").status == 404)
            #expect(try await bob.get("/v1/customers").json["data"] == [])
            #expect(try await bob.get("/v1/customers", query: "starting_after=\(id)").status == 400)
            #expect(try await bob.get("/v1/events").json["data"] == [])
            let eventID = try #require(try await alice.get("/v1/events").json["data"]?[0]?["id"]?.stringValue)
            #expect(try await bob.get("/v1/events/\(eventID)").status == 404)
            #expect(try await alice.get("/v1/customers/\(id)").json["name"] == .null)
        }
    }
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}
