import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("Customers over HTTP")
struct CustomerTests {
    @Test func createRetrieveUpdateDelete() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let created = try await api.post(
                "/v1/customers",
                "email=jenny%40example.com&name=Jenny+Rosen&phone=%2B15555550100&description=VIP"
                    + "&address[line1]=1+Main+St&address[city]=Berlin&address[country]=DE"
                    + "&metadata[order_id]=6735&preferred_locales[0]=de&preferred_locales[1]=en"
                    + "&shipping[name]=Jenny&shipping[address][line1]=2+Side+St"
            )
            #expect(created.status == 200)
            let customer = created.json
            let id = try #require(customer["id"]?.stringValue)
            #expect(id.hasPrefix("cus_") && !id.dropFirst(4).contains("_"))
            #expect(customer["object"] == "customer")
            #expect(customer["email"] == "jenny@example.com")
            #expect(customer["name"] == "Jenny Rosen")
            #expect(customer["address"]?["city"] == "Berlin")
            #expect(customer["address"]?["line2"] == .null, "unset fields are null, not missing")
            #expect(customer["metadata"] == ["order_id": "6735"])
            #expect(customer["preferred_locales"] == ["de", "en"])
            #expect(customer["shipping"]?["address"]?["line1"] == "2 Side St")
            #expect(customer["invoice_settings"]?["default_payment_method"] == .null)
            #expect(customer["livemode"] == false)

            let retrieved = try await api.get("/v1/customers/\(id)")
            #expect(retrieved.json == customer)

            // Only what is sent changes; an empty value unsets; metadata merges.
            let updated = try await api.post(
                "/v1/customers/\(id)", "name=Jenny+R.&phone=&metadata[tier]=gold&metadata[order_id]="
            )
            #expect(updated.status == 200)
            #expect(updated.json["name"] == "Jenny R.")
            #expect(updated.json["phone"] == .null)
            #expect(updated.json["email"] == "jenny@example.com")
            #expect(updated.json["metadata"] == ["tier": "gold"])
            #expect(try await api.post("/v1/customers/\(id)", "address=").json["address"] == .null)
            #expect(try await api.post("/v1/customers/\(id)", "metadata=").json["metadata"] == [:])

            let deleted = try await api.delete("/v1/customers/\(id)")
            #expect(deleted.status == 200)
            #expect(deleted.json == ["id": .string(id), "object": "customer", "deleted": true])
            #expect(try await api.get("/v1/customers/\(id)").json == deleted.json)
            let again = try await api.delete("/v1/customers/\(id)")
            #expect(again.status == 404)
            #expect(again.error?["code"] == "resource_missing")
            #expect(try await api.post("/v1/customers/\(id)", "name=x").status == 404)
            let list = try await api.get("/v1/customers")
            #expect(list.json["data"]?.arrayValue?.isEmpty == true, "deleted customers are never listed")
        }
    }

    @Test func jsonBodiesWorkLikeForms() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let body = #"{"email": "a@b.co", "metadata": {"k": "v"}, "address": {"city": "Paris"}, "description": null}"#
            let call = try await api.post("/v1/customers", body, headers: ["Content-Type": "application/json"])
            #expect(call.status == 200)
            #expect(call.json["metadata"] == ["k": "v"])
            #expect(call.json["address"]?["city"] == "Paris")
            #expect(call.json["description"] == .null)
        }
    }

    @Test func anEmptyBodyOrNoContentTypeIsAnEmptyForm() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let call = try await api.send("POST", "/v1/customers", headers: ["Content-Type": "text/plain"], body: "")
            #expect(call.status == 200)
            #expect(call.json["email"] == .null)
        }
    }

    @Test(
        arguments: [
            ("nope=1", "nope", "parameter_unknown"),
            ("address[planet]=Mars", "address[planet]", "parameter_unknown"),
            ("shipping[address][city]=X", "shipping[name]", "parameter_missing"),
            ("email[x]=1", "email", nil),
            ("address=Berlin", "address", nil),
            ("metadata[\(String(repeating: "k", count: 41))]=v", "metadata[\(String(repeating: "k", count: 41))]", nil),
            ("metadata[k]=\(String(repeating: "v", count: 501))", "metadata[k]", nil),
            ("email=\(String(repeating: "e", count: 513))", "email", nil),
            ("invoice_settings[default_payment_method]=pm_123", "invoice_settings[default_payment_method]", "resource_missing"),
            ("preferred_locales[0][x]=1", "preferred_locales[0]", nil),
        ] as [(String, String, String?)])
    func badParametersAre400sNamingTheParameterAndChangeNothing(form: String, param: String, code: String?) async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let call = try await api.post("/v1/customers", form)
            #expect(call.status == 400, "\(call.json)")
            #expect(call.error?["type"] == "invalid_request_error")
            #expect(call.error?["param"]?.stringValue == param)
            if let code { #expect(call.error?["code"]?.stringValue == code) }
            #expect(try await api.get("/v1/customers").json["data"] == [], "nothing was created")
            #expect(try await api.get("/v1/events").json["data"] == [], "no event was recorded")
        }
    }

    @Test func fiftyMetadataKeysAreFineAndFiftyOneAreNot() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let fifty = (1...50).map { "metadata[k\($0)]=v" }.joined(separator: "&")
            let created = try await api.post("/v1/customers", fifty)
            #expect(created.status == 200)
            let id = try #require(created.json["id"]?.stringValue)
            let refused = try await api.post("/v1/customers/\(id)", "metadata[k51]=v")
            #expect(refused.status == 400)
            #expect(refused.error?["param"] == "metadata")
            #expect(try await api.get("/v1/customers/\(id)").json["metadata"]?.objectValue?.count == 50)
        }
    }

    @Test func listFiltersByEmailExactly() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            _ = try await api.post("/v1/customers", "email=a%40x.io")
            _ = try await api.post("/v1/customers", "email=A%40x.io")
            _ = try await api.post("/v1/customers", "email=b%40x.io")
            let list = try await api.get("/v1/customers", query: "email=a%40x.io")
            #expect(list.json["data"]?.arrayValue?.map { $0["email"] } == ["a@x.io"])
            #expect(list.json["url"] == "/v1/customers")
        }
    }

    @Test func expandIsCheckedBeforeAnythingRuns() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let refused = try await api.post("/v1/customers", "email=x%40y.z&expand[]=nope")
            #expect(refused.status == 400)
            #expect(refused.error?["param"] == "expand")
            #expect(try await api.get("/v1/customers").json["data"] == [], "nothing was created")
            let accepted = try await api.post(
                "/v1/customers", "email=x%40y.z&expand[0]=invoice_settings.default_payment_method"
            )
            #expect(accepted.status == 200)
            #expect(accepted.json["invoice_settings"]?["default_payment_method"] == .null)
            let list = try await api.get("/v1/customers", query: "expand[]=data.invoice_settings.default_payment_method")
            #expect(list.status == 200)
            let deep = try await api.get("/v1/customers", query: "expand[]=data.a.b.c.d")
            #expect(deep.status == 400)
        }
    }
}
