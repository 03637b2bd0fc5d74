public import Foundation
import PurseCore
import PursePostgres

/// Calls a server under test with one API key, as an SDK would: Bearer auth, form bodies.
public struct APIClient: Sendable {
    public let baseURL: URL
    public let key: String?

    public init(baseURL: URL, key: String?) {
        self.baseURL = baseURL
        self.key = key
    }

    public func get(_ path: String, query: String = "", headers: [String: String] = [:]) async throws -> HTTPCall {
        try await send("GET", path + (query.isEmpty ? "" : "?" + query), headers: headers)
    }

    public func post(_ path: String, _ form: String = "", headers: [String: String] = [:]) async throws -> HTTPCall {
        try await send("POST", path, headers: headers, body: form)
    }

    public func delete(_ path: String, headers: [String: String] = [:]) async throws -> HTTPCall {
        try await send("DELETE", path, headers: headers)
    }

    public func send(_ method: String, _ pathAndQuery: String, headers: [String: String] = [:], body: String? = nil) async throws -> HTTPCall {
        var allHeaders = headers
        if let key, allHeaders["Authorization"] == nil { allHeaders["Authorization"] = "Bearer \(key)" }
        guard let url = URL(string: baseURL.absoluteString + pathAndQuery) else {
            throw TestSetupError("Not a URL: \(pathAndQuery)")
        }
        return try await HTTPCall.send(method, url, headers: allHeaders, body: body)
    }
}

/// An account made for a test, with its keys.
public struct TestAccount: Sendable {
    public let id: String
    public let secretKey: String
    public let publishableKey: String
    public let server: URL

    /// A client using the secret key.
    public var secret: APIClient { APIClient(baseURL: server, key: secretKey) }
    /// A client using the publishable key.
    public var publishable: APIClient { APIClient(baseURL: server, key: publishableKey) }
    /// A client with another key (ephemeral, session) or none.
    public func client(key: String?) -> APIClient { APIClient(baseURL: server, key: key) }
}

extension LiveServer {
    /// Creates an account with a secret and a publishable key.
    public func makeAccount(name: String = "Test") async throws -> TestAccount {
        let created = try await AccountService(database: PostgresDatabase(pool: pool)).createAccount(name: name)
        return TestAccount(
            id: created.account.id, secretKey: created.secretKey.key, publishableKey: created.publishableKey.key,
            server: baseURL
        )
    }
}

extension TestAccount {
    /// Creates an ephemeral key for `customer` as a merchant backend does, and returns its secret.
    public func ephemeralKey(for customer: String) async throws -> (id: String, secret: String) {
        let call = try await secret.post("/v1/ephemeral_keys", "customer=\(customer)", headers: ["Stripe-Version": "2020-08-27"])
        guard let id = call.json["id"]?.stringValue, let key = call.json["secret"]?.stringValue else {
            throw TestSetupError("No ephemeral key: \(call.json)")
        }
        return (id, key)
    }
}
