import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("The OpenAPI document")
struct OpenAPITests {
    @Test func listsExactlyTheRegisteredRoutes() async throws {
        try await LiveServer.with { server in
            let call = try await APIClient(baseURL: server.baseURL, key: nil).get("/openapi.json")
            #expect(call.status == 200)
            #expect(call.json["openapi"] == "3.1.0")
            let paths = try #require(call.json["paths"]?.objectValue)
            var documented: Set<String> = []
            for (path, operations) in paths {
                for method in operations.objectValue?.keys ?? [] where ["get", "post", "delete"].contains(method) {
                    documented.insert("\(method.uppercased()) \(path)")
                }
            }
            let registered = Set(server.routes.map { "\($0.method) \($0.path)" })
            #expect(registered.subtracting(documented).isEmpty, "registered but undocumented: \(registered.subtracting(documented).sorted())")
            #expect(documented.subtracting(registered).isEmpty, "documented but not registered: \(documented.subtracting(registered).sorted())")
        }
    }
}
