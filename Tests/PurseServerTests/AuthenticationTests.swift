import Foundation
import PurseCore
import PursePostgres
import TestSupport
import Testing

@Suite("Authentication over HTTP")
struct AuthenticationTests {
    @Test func aMissingKeyIs401AsStripeWordsIt() async throws {
        try await LiveServer.with { server in
            let call = try await APIClient(baseURL: server.baseURL, key: nil).get("/v1/customers")
            #expect(call.status == 401)
            #expect(call.error?["type"] == "invalid_request_error")
            #expect(call.error?["message"]?.stringValue?.hasPrefix("You did not provide an API key.") == true)
        }
    }

    @Test func anUnknownKeyIs401WithTheKeyMasked() async throws {
        try await LiveServer.with { server in
            let key = "sk_test_" + String(repeating: "x", count: 40) + "WXYZ"
            let call = try await APIClient(baseURL: server.baseURL, key: key).get("/v1/customers")
            #expect(call.status == 401)
            let message = try #require(call.error?["message"]?.stringValue)
            #expect(message.hasPrefix("Invalid API Key provided: sk_test_"))
            #expect(message.hasSuffix("WXYZ"))
            #expect(!message.contains("xxxxxxxx"))
        }
    }

    @Test func bearerAndBasicBothWork() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            #expect(try await account.secret.get("/v1/customers").status == 200)
            let basic = Data("\(account.secretKey):".utf8).base64EncodedString()
            let call = try await account.client(key: nil).get("/v1/customers", headers: ["Authorization": "Basic \(basic)"])
            #expect(call.status == 200)
        }
    }

    /// The scheme in any case, and blanks around the key, as HTTP allows.
    @Test(arguments: ["bearer %@", "BEARER %@", "Bearer   %@\t ", " \tBearer %@"])
    func theSchemeIsReadInAnyCaseAndBlanksAroundTheKeyAreIgnored(template: String) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let header = template.replacingOccurrences(of: "%@", with: account.secretKey)
            let call = try await account.client(key: nil).get("/v1/customers", headers: ["Authorization": header])
            #expect(call.status == 200)
        }
    }

    @Test(arguments: ["Token abc", "Bearer", "Bearer\tabc", "Bearers abc", "Bear abc", "Basic !!!notbase64", "sk_test_abc"])
    func malformedAuthorizationHeadersAre401(header: String) async throws {
        try await LiveServer.with { server in
            let call = try await APIClient(baseURL: server.baseURL, key: nil).get("/v1/customers", headers: ["Authorization": header])
            #expect(call.status == 401)
            #expect(call.error?["type"] == "invalid_request_error")
        }
    }

    @Test func aRevokedKeyStopsWorkingAtOnceAndOthersKeepWorking() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let accounts = AccountService(database: PostgresDatabase(pool: server.pool))
            let second = try await accounts.createKey(account: account.id, kind: .secret)
            let keys = try await accounts.listKeys(account: account.id)
            let first = try #require(keys.first { $0.kind == .secret && $0.id != second.info.id })
            try await accounts.revokeKey(id: first.id)
            let revoked = try await account.secret.get("/v1/customers")
            #expect(revoked.status == 401)
            #expect(revoked.error?["message"]?.stringValue?.hasPrefix("Invalid API Key provided") == true)
            #expect(try await account.client(key: second.key).get("/v1/customers").status == 200)
        }
    }

    @Test func thePublishableKeyIsRefusedWhereTheSecretKeyIsRequired() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            for (method, path) in [("GET", "/v1/customers"), ("POST", "/v1/customers"), ("GET", "/v1/events")] {
                let call = try await account.publishable.send(method, path)
                #expect(call.status == 403, "\(method) \(path)")
                #expect(call.error?["code"] == "secret_key_required")
            }
        }
    }

    @Test func publicRoutesNeedNoKey() async throws {
        try await LiveServer.with { server in
            let anonymous = APIClient(baseURL: server.baseURL, key: nil)
            for path in ["/healthz", "/readyz", "/openapi.json"] {
                let status = try await anonymous.get(path).status
                #expect(status == 200, "\(path)")
            }
        }
    }
}
