import PurseModels
import Testing

@testable import PurseCore

/// API keys, customers' ephemeral keys and webhook deliveries, through their
/// services, on the in-memory repositories.
@Suite("Keys, credentials and deliveries, in memory")
struct CredentialsAndDeliveryTests {
    @Test func anAccountsKeysAreListedAndARevocationKeepsItsFirstTime() async throws {
        let purse = try await DomainHarness.make()
        let created = try await purse.accounts.createAccount(name: "  Shop  ")
        #expect(created.account.name == "Shop")
        let account = created.account.id
        let rotated = try await purse.accounts.createKey(account: account, kind: .secret)
        let keys = try await purse.accounts.listKeys(account: account)
        #expect(Set(keys.map(\.id)) == [created.secretKey.info.id, created.publishableKey.info.id, rotated.info.id])
        #expect(keys.allSatisfy { !$0.isRevoked })
        // A key of no account is refused.
        await #expect(throws: PurseError.self) { _ = try await purse.accounts.createKey(account: "acct_missing", kind: .secret) }

        let hash = SecretHash.sha256(created.secretKey.key)
        let live = try await purse.database.autocommit { try await $0.accounts.liveKey(hash: hash) }
        #expect(live?.id == created.secretKey.info.id)
        #expect(live?.kind == .secret)

        let revoked = try await purse.accounts.revokeKey(id: created.secretKey.info.id)
        #expect(revoked.isRevoked)
        let first = await purse.database.snapshot().apiKeys[revoked.id]?.revokedAt
        #expect(first != nil)
        await purse.database.advanceClock(by: 100)
        _ = try await purse.accounts.revokeKey(id: revoked.id)
        #expect(await purse.database.snapshot().apiKeys[revoked.id]?.revokedAt == first)
        #expect(try await purse.database.autocommit { try await $0.accounts.liveKey(hash: hash) } == nil)
        #expect(try await purse.accounts.listKeys(account: account).filter(\.isRevoked).map(\.id) == [revoked.id])
        await #expect(throws: PurseError.self) { try await purse.accounts.revokeKey(id: "key_missing") }
    }

    @Test func theDevelopmentAccountIsMadeOnceThenGetsNewKeys() async throws {
        let purse = try await DomainHarness.make()
        let first = try await purse.accounts.issueDevelopmentKeys()
        let second = try await purse.accounts.issueDevelopmentKeys()
        #expect(second.account == first.account)
        #expect(second.secretKey != first.secretKey)
        // The harness's own account, and the development account, once.
        #expect(Set(try await purse.accounts.listAccounts().map(\.id)) == [purse.account, first.account])
        #expect(try await purse.accounts.listKeys(account: first.account).count == 4)
        // Remembered keys already stored are left as they are.
        try await purse.accounts.ensureDevelopmentAccount(first)
        #expect(try await purse.accounts.listKeys(account: first.account).count == 4)
    }

    @Test func anEphemeralKeyAuthenticatesUntilRevokedAndOnlyForALiveCustomer() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let key = try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret)
        let hash = SecretHash.sha256(try #require(key.secret))
        let credential = try await purse.database.autocommit { try await $0.customerCredentials.credential(keyHash: hash) }
        #expect(credential?.customerID == customer)
        #expect(credential?.accountID == purse.account)
        #expect(credential?.expires == key.expires)

        let missing = await #expect(throws: PurseError.self) {
            _ = try await purse.ephemeralKeys.create(.init(customer: "cus_missing"), by: purse.secret)
        }
        #expect(missing?.param == "customer")
        // Another account cannot revoke it.
        let other = Credential(kind: .secret, accountID: "acct_other", sourceID: "sk_other")
        await #expect(throws: PurseError.self) { _ = try await purse.ephemeralKeys.revoke(key.id, by: other) }
        #expect(try await purse.database.autocommit { try await $0.customerCredentials.credential(keyHash: hash) } != nil)

        let revoked = try await purse.ephemeralKeys.revoke(key.id, by: purse.secret)
        #expect(revoked.secret == nil)
        #expect(try await purse.database.autocommit { try await $0.customerCredentials.credential(keyHash: hash) } == nil)
        // Again, harmlessly.
        #expect(try await purse.ephemeralKeys.revoke(key.id, by: purse.secret).id == key.id)
    }

    @Test func deletingACustomerRevokesItsKeysAndDetachesItsMethods() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let method = try await purse.attach(to: customer)
        let key = try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret)
        let bystander = try await purse.customer()
        let kept = try await purse.ephemeralKeys.create(.init(customer: bystander), by: purse.secret)

        let types = try await purse.eventTypes { _ = try await purse.customers.delete(customer, by: purse.secret, request: purse.request) }
        #expect(types == ["payment_method.detached", "customer.deleted"])
        let state = await purse.database.snapshot()
        #expect(state.ephemeralKeys[key.id]?.revokedAt != nil)
        #expect(state.ephemeralKeys[kept.id]?.revokedAt == nil)
        #expect(state.paymentMethods[method.id]?.customerID == nil)
        let hash = SecretHash.sha256(try #require(key.secret))
        #expect(try await purse.database.autocommit { try await $0.customerCredentials.credential(keyHash: hash) } == nil)
        // No new key for a deleted customer.
        await #expect(throws: PurseError.self) { _ = try await purse.ephemeralKeys.create(.init(customer: customer), by: purse.secret) }
    }

    @Test func aDeliveryIsClaimedOnceAndRetriedAfterItsBackoff() async throws {
        let purse = try await DomainHarness.make()
        let endpoint = WebhookEndpoint(
            id: "we_inmemory", apiVersion: nil, created: Clock.now, description: nil, enabledEvents: ["customer.created"], metadata: [:],
            secret: nil, status: "enabled", url: "https://hooks.example.com/purse"
        )
        let account = purse.account
        try await purse.database.autocommit { try await $0.webhooks.insertEndpoint(endpoint, account: account) }
        let customer = try await purse.customer()
        _ = try await purse.setDefault(nil, of: customer)  // customer.updated: not subscribed

        var backlog = try await purse.webhookQueue.backlog()
        #expect((backlog.pending, backlog.due, backlog.failed) == (1, 1, 0))
        let first = try await purse.webhookQueue.claim(limit: 10)
        #expect(first.map(\.previousAttempts) == [0])
        #expect(first.first?.url == endpoint.url)
        // Claimed: not due again while its lease runs.
        #expect(try await purse.webhookQueue.claim(limit: 10).isEmpty)

        let attempt = try #require(first.first)
        let time = await purse.database.snapshot().now
        // Recorded twice, as after a commit whose acknowledgement was lost: kept once.
        let attemptID = ObjectID.make(.delivery)
        for _ in 0..<2 {
            try await purse.webhookQueue.record(
                attempt, outcome: .init(statusCode: 500, failure: nil, durationMs: 12), at: time, attemptID: attemptID
            )
        }
        backlog = try await purse.webhookQueue.backlog()
        #expect((backlog.pending, backlog.due) == (1, 0))
        #expect(try await purse.webhookQueue.claim(limit: 10).isEmpty)

        await purse.database.advanceClock(by: 61)
        let retry = try await purse.webhookQueue.claim(limit: 10)
        #expect(retry.map(\.previousAttempts) == [1])
        try await purse.webhookQueue.record(try #require(retry.first), outcome: .init(statusCode: 200, failure: nil, durationMs: 8))
        backlog = try await purse.webhookQueue.backlog()
        #expect((backlog.pending, backlog.due, backlog.failed) == (0, 0, 0))

        let attempts = try await purse.database.autocommit {
            try await $0.webhooks.listAttempts(
                endpoint: endpoint.id, account: account, pagination: try Pagination(limit: 10, startingAfter: nil, endingBefore: nil))
        }
        #expect(attempts.data.map(\.statusCode) == [200, 500])
        #expect(attempts.data.last?.nextRetryAt == time + 60)
        let event = try await purse.events.retrieve(attempt.eventID, account: account)
        #expect(event.pendingWebhooks == 0)
    }
}
