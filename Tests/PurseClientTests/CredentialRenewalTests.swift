import Foundation
import Postgres
import PurseClient
import PurseServer
import TestSupport
import Testing

/// The customer credential is cached, renewed through the provider exactly once when Purse
/// refuses it, renewed before a session's key expires, and fetched once for a burst of calls.
// Serialized: each test starts its own server and database, and the whole test run shares one
// PostgreSQL with a connection limit.
@Suite("Credential caching and renewal", .serialized)
struct CredentialRenewalTests {
    @Test func anExpiredEphemeralKeyIsReplacedOnceAndTheCallSucceeds() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let visa = try await shop.attach("pm_card_visa")
            let adapter = shop.adapter(.ephemeralKey)
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [visa])
            let first = try #require(await shop.log.ephemeralKeyIDs.first)

            try await server.endCredential(
                "UPDATE ephemeral_keys SET expires = \(Int(Date().timeIntervalSince1970) - 1) WHERE id = \(first)", account: shop.account,
                customer: shop.customer)
            try await adapter.setSelectedPaymentOption(paymentOption: .stripeId(visa))
            #expect(await shop.log.ephemeralKeyIDs.count == 2, "one new key from the provider")
            #expect(try await adapter.fetchSelectedPaymentOption() == .stripeId(visa))
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [visa])
            #expect(await shop.log.ephemeralKeyIDs.count == 2, "the new key is kept")
        }
    }

    @Test func aKeyThatStaysRefusedIsUnauthenticatedAfterOneRetry() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let revoked = try await shop.ephemeralKey()
            let id = try #require(await shop.log.ephemeralKeyIDs.first)
            _ = try await shop.account.secret.delete("/v1/ephemeral_keys/\(id)")
            let calls = ProviderLog()
            let adapter = PurseCustomerAdapter(
                customerEphemeralKeyProvider: {
                    await calls.mintedEphemeralKey(id)
                    return revoked
                },
                publishableKey: shop.account.publishableKey, baseURL: server.baseURL
            )
            let error = try await #require(throws: PurseClientError.self) { try await adapter.fetchSelectedPaymentOption() }
            #expect(error.kind == .unauthenticated)
            #expect(error.httpStatus == 401)
            #expect(error.requestID?.hasPrefix("req_") == true)
            #expect(error.message.hasPrefix("Invalid API Key provided: ek_test_"))
            #expect(!error.message.contains(revoked.ephemeralKeySecret), "the key is masked")
            #expect(await calls.credentialCalls == 2, "the first key, then exactly one renewal")
        }
    }

    @Test func anExpiredCustomerSessionIsReplacedOnce() async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            let visa = try await shop.attach("pm_card_visa")
            let adapter = shop.adapter(.customerSession)
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [visa])
            let first = try #require(await shop.log.customerSessionIDs.first)

            try await server.endCredential(
                "UPDATE customer_sessions SET expires_at = 1 WHERE id = \(first)", account: shop.account, customer: shop.customer)
            // The session's key is refused (401) on a customer-scoped call...
            try await adapter.setSelectedPaymentOption(paymentOption: .link)
            #expect(await shop.log.customerSessionIDs.count == 2)
            // ...and the session's secret (customer_session_expired) on the elements session.
            let second = try #require(await shop.log.customerSessionIDs.last)
            try await server.endCredential(
                "UPDATE customer_sessions SET expires_at = 1 WHERE id = \(second)", account: shop.account, customer: shop.customer)
            #expect(try await adapter.fetchPaymentMethods().map(\.id) == [visa])
            #expect(await shop.log.customerSessionIDs.count == 3)
            #expect(try await adapter.fetchSelectedPaymentOption() == .link)
            #expect(await shop.log.customerSessionIDs.count == 3)
        }
    }

    @Test func aSessionKeyIsRenewedShortlyBeforeItExpires() async throws {
        try await LiveServer.with(configuration: ServerConfiguration(port: 0, logLevel: .warning, customerSessionLifetime: 4)) { server in
            let shop = try await Shop.open(on: server)
            let adapter = shop.adapter(.customerSession)
            #expect(try await adapter.fetchSelectedPaymentOption() == nil)
            #expect(try await adapter.fetchSelectedPaymentOption() == nil)
            #expect(await shop.log.customerSessionIDs.count == 1, "used while it is well within its lifetime")
            // Four-second sessions are renewed two seconds before they end.
            try await Task.sleep(for: .milliseconds(2500))
            #expect(try await adapter.fetchSelectedPaymentOption() == nil)
            #expect(await shop.log.customerSessionIDs.count == 2)
        }
    }

    @Test(arguments: AdapterMode.allCases)
    func aBurstOfCallsAsksTheProviderOnce(mode: AdapterMode) async throws {
        try await LiveServer.with { server in
            let shop = try await Shop.open(on: server)
            _ = try await shop.attach("pm_card_visa")
            let adapter = shop.adapter(mode)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await adapter.fetchPaymentMethods().count } }
                for try await count in group { #expect(count == 1) }
            }
            #expect(await shop.log.credentialCalls == 1)
        }
    }
}
