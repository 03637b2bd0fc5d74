import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("Idempotency keys")
struct IdempotencyTests {
    @Test func aRetryReplaysTheFirstResponse() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let headers = ["Idempotency-Key": "order-1"]
            let first = try await api.post("/v1/customers", "email=a%40b.co", headers: headers)
            let replay = try await api.post("/v1/customers", "email=a%40b.co", headers: headers)
            #expect(first.status == 200 && replay.status == 200)
            #expect(replay.json == first.json)
            #expect(replay.header("Idempotent-Replayed") == "true")
            #expect(first.header("Idempotent-Replayed") == nil)
            #expect(try await api.get("/v1/customers").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func otherParametersOrAnotherPathAreRefused() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let headers = ["Idempotency-Key": "k"]
            let first = try await api.post("/v1/customers", "email=a%40b.co", headers: headers)
            let id = try #require(first.json["id"]?.stringValue)

            let otherParameters = try await api.post("/v1/customers", "email=c%40d.co", headers: headers)
            #expect(otherParameters.status == 400)
            #expect(otherParameters.error?["type"] == "idempotency_error")
            #expect(otherParameters.error?["message"]?.stringValue?.contains("same parameters") == true)

            let otherPath = try await api.post("/v1/customers/\(id)", "email=a%40b.co", headers: headers)
            #expect(otherPath.status == 400)
            #expect(otherPath.error?["type"] == "idempotency_error")
            #expect(otherPath.error?["message"]?.stringValue?.contains("same endpoint") == true)
        }
    }

    /// Each caller has a key space of its own (spec §5): the same key sent by two customers'
    /// devices, or by the publishable key after the merchant's server, runs each request, and no
    /// answer names another caller's request.
    @Test func callersNeverMeetThroughAKey() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let headers = ["Idempotency-Key": "shared-key"]
            let merchant = try await account.secret.post("/v1/customers", "name=Merchant", headers: headers)
            let secretPath = try #require(merchant.json["id"]?.stringValue)
            let first = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let second = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let firstDevice = account.client(key: try await account.ephemeralKey(for: first).secret)
            let secondDevice = account.client(key: try await account.ephemeralKey(for: second).secret)

            let method = "type=card&card[token]=tok_visa"
            let byPublishable = try await account.publishable.post("/v1/payment_methods", method, headers: headers)
            #expect(byPublishable.status == 200)
            #expect(byPublishable.header("Idempotent-Replayed") == nil)
            let attachFirst = try await firstDevice.post(
                "/v1/payment_methods/\(try #require(byPublishable.json["id"]?.stringValue))/attach", "customer=\(first)", headers: headers
            )
            #expect(attachFirst.status == 200)
            let other = try #require(try await account.publishable.post("/v1/payment_methods", method).json["id"]?.stringValue)
            let attachSecond = try await secondDevice.post("/v1/payment_methods/\(other)/attach", "customer=\(second)", headers: headers)
            #expect(attachSecond.status == 200)
            #expect(attachSecond.header("Idempotent-Replayed") == nil)
            for call in [byPublishable, attachFirst, attachSecond] {
                let text = String(decoding: call.body, as: UTF8.self)
                #expect(!text.contains(secretPath) && !text.contains("/v1/customers"))
            }
            // Within one caller, the key still guards its first request.
            let replay = try await secondDevice.post("/v1/payment_methods/\(other)/attach", "customer=\(second)", headers: headers)
            #expect(replay.header("Idempotent-Replayed") == "true")
            let misuse = try await secondDevice.post("/v1/payment_methods/\(other)/detach", "", headers: headers)
            #expect(misuse.status == 400)
            #expect(misuse.error?["message"]?.stringValue?.contains(first) == false)
        }
    }

    @Test func twentyConcurrentDuplicatesRunOnce() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let call = try await api.post("/v1/customers", "name=Once", headers: ["Idempotency-Key": "same"])
                        return (call.status, call.json["id"]?.stringValue ?? call.error?["code"]?.stringValue)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            // Each got the one result, or 409 while the first was still running.
            #expect(statuses.allSatisfy { $0.0 == 200 || ($0.0 == 409 && $0.1 == "idempotency_key_in_use") })
            let ids = Set(statuses.filter { $0.0 == 200 }.compactMap(\.1))
            #expect(ids.count == 1)
            #expect(try await api.get("/v1/customers").json["data"]?.arrayValue?.count == 1)
            #expect(try await api.get("/v1/events").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func keysBelongToOneAccount() async throws {
        try await LiveServer.with { server in
            let first = try await server.makeAccount(name: "A").secret
            let second = try await server.makeAccount(name: "B").secret
            let headers = ["Idempotency-Key": "shared"]
            let a = try await first.post("/v1/customers", "name=X", headers: headers)
            let b = try await second.post("/v1/customers", "name=X", headers: headers)
            #expect(a.status == 200 && b.status == 200)
            #expect(a.json["id"] != b.json["id"])
            #expect(b.header("Idempotent-Replayed") == nil)
        }
    }

    @Test func requestsRefusedBeforeRunningAreNotStored() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let headers = ["Idempotency-Key": "fix-and-retry"]
            let refused = try await api.post("/v1/customers", "emial=typo", headers: headers)
            #expect(refused.status == 400)
            // The same key with corrected parameters runs, as the first attempt left nothing.
            let fixed = try await api.post("/v1/customers", "email=ok%40x.io", headers: headers)
            #expect(fixed.status == 200)
            #expect(fixed.header("Idempotent-Replayed") == nil)
        }
    }

    @Test func overlongKeysAreRefused() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let call = try await api.post("/v1/customers", "name=x", headers: ["Idempotency-Key": String(repeating: "k", count: 256)])
            #expect(call.status == 400)
            #expect(try await api.get("/v1/customers").json["data"] == [])
        }
    }

    @Test func storedResponsesAreSealed() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            _ = try await api.post("/v1/customers", "email=sealed%40example.com", headers: ["Idempotency-Key": "sealed"])
            let rows = try await server.pool.query("SELECT response, params_hash FROM idempotency_keys")
            let stored: [UInt8] = try rows[0]["response"]
            #expect(!String(decoding: stored, as: UTF8.self).contains("sealed@example.com"))
            #expect(try rows[0]["params_hash", as: [UInt8].self].count == 32)
        }
    }

    /// A request whose database connection dies mid-way changed nothing, and its key is free at
    /// once (the key's lock ends with the transaction): the retry runs, with no 409 and no lease
    /// to wait out.
    @Test func aRequestWhoseConnectionDiesLeavesItsKeyFreeAtOnce() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers", "name=Held").json["id"]?.stringValue)
            let headers = ["Idempotency-Key": "cut-off"]
            // Another transaction holds the customer's row, so the update waits inside its own.
            try await server.pool.withTransaction { holder in
                try await holder.query("SELECT 1 FROM customers WHERE id = \(customer) FOR UPDATE")
                async let cut = api.post("/v1/customers/\(customer)", "metadata[step]=one", headers: headers)
                var waiter: [Int32] = []
                for _ in 0..<400 where waiter.isEmpty {
                    try await Task.sleep(for: .milliseconds(10))
                    waiter = try await server.pool.query(
                        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    ).map { try $0["pid"] }
                }
                let pid = try #require(waiter.first)
                try await server.pool.query("SELECT pg_terminate_backend(\(pid))")
                let answer = try await cut
                #expect(answer.status == 503)
                #expect(answer.header("Stripe-Should-Retry") == "true")
            }
            let retry = try await api.post("/v1/customers/\(customer)", "metadata[step]=one", headers: headers)
            #expect(retry.status == 200)
            #expect(retry.header("Idempotent-Replayed") == nil)
            #expect(retry.json["metadata"]?["step"] == "one")
            #expect(try await api.post("/v1/customers/\(customer)", "metadata[step]=one", headers: headers).header("Idempotent-Replayed") == "true")
        }
    }
}
