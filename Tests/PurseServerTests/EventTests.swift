import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("The event outbox")
struct EventTests {
    @Test func everyChangeRecordsItsEvent() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let created = try await api.post(
                "/v1/customers", "email=a%40b.co&metadata[a]=1", headers: ["Idempotency-Key": "create-1", "Stripe-Version": "2020-08-27"]
            )
            let id = try #require(created.json["id"]?.stringValue)
            _ = try await api.post("/v1/customers/\(id)", "email=c%40d.co&metadata[b]=2")
            _ = try await api.delete("/v1/customers/\(id)")

            let events = try #require(try await api.get("/v1/events").json["data"]?.arrayValue)
            #expect(events.map { $0["type"] } == ["customer.deleted", "customer.updated", "customer.created"])
            let createdEvent = events[2]
            #expect(createdEvent["object"] == "event")
            #expect(createdEvent["data"]?["object"]?["id"] == .string(id))
            // The same bytes make the response and the event's object.
            #expect(createdEvent["data"]?["object"] == created.json)
            #expect(createdEvent["data"]?["previous_attributes"] == nil)
            #expect(createdEvent["request"]?["idempotency_key"] == "create-1")
            #expect(createdEvent["request"]?["id"]?.stringValue == created.header("Request-Id"))
            #expect(createdEvent["api_version"] == "2020-08-27")
            #expect(createdEvent["livemode"] == false)

            let updated = events[1]
            #expect(updated["data"]?["object"]?["email"] == "c@d.co")
            #expect(updated["data"]?["previous_attributes"]?["email"] == "a@b.co")
            #expect(updated["data"]?["previous_attributes"]?["metadata"] == ["b": .null])

            #expect(events[0]["data"]?["object"]?["email"] == "c@d.co", "the deleted event shows the customer as it was")
            let eventID = try #require(events[0]["id"]?.stringValue)
            #expect(try await api.get("/v1/events/\(eventID)").json == events[0])
        }
    }

    @Test func aRefusedOrRolledBackChangeEmitsNothing() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let id = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            // The update reads and changes the customer in a transaction, then fails on the default.
            let refused = try await api.post("/v1/customers/\(id)", "name=New&invoice_settings[default_payment_method]=pm_nope")
            #expect(refused.status == 400)
            #expect(try await api.get("/v1/customers/\(id)").json["name"] == .null)
            let types = try await api.get("/v1/events").json["data"]?.arrayValue?.map { $0["type"] }
            #expect(types == ["customer.created"])
            // An update that changes nothing is not an event either.
            _ = try await api.post("/v1/customers/\(id)", "name=")
            #expect(try await api.get("/v1/events").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func listFiltersByTypeAndCreated() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let id = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            _ = try await api.post("/v1/customers/\(id)", "name=N")
            let created = try await api.get("/v1/events", query: "type=customer.created")
            #expect(created.json["data"]?.arrayValue?.count == 1)
            let all = try await api.get("/v1/events", query: "type=customer.*")
            #expect(all.json["data"]?.arrayValue?.count == 2)
            let several = try await api.get("/v1/events", query: "types[]=customer.updated&types[]=customer.deleted")
            #expect(several.json["data"]?.arrayValue?.map { $0["type"] } == ["customer.updated"])
            let future = Int(Date().timeIntervalSince1970) + 3600
            #expect(try await api.get("/v1/events", query: "created[gt]=\(future)").json["data"] == [])
            #expect(try await api.get("/v1/events", query: "created[lte]=\(future)").json["data"]?.arrayValue?.count == 2)
            let page = try await api.get("/v1/events", query: "limit=1")
            #expect(page.json["has_more"] == true)
            #expect(try await api.get("/v1/events/evt_nothing").status == 404)
        }
    }
}
