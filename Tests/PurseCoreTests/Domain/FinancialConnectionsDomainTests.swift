import PurseModels
import Testing

@testable import PurseCore

/// Financial Connections' rules, through ``FinancialConnectionsService`` on the in-memory
/// database: what a client secret opens, what the test bank links, that a session is decided
/// once, and what a linked account saves as.
@Suite("Financial Connections, in memory")
struct FinancialConnectionsDomainTests {
    /// A bank setup intent of a new customer, and a session made for it with the publishable key.
    private func linkSession(_ purse: DomainHarness) async throws -> (intent: SetupIntent, session: FinancialConnectionsSession) {
        var params = SetupIntentCreateParameters()
        params.customer = try await purse.customer()
        params.paymentMethodTypes = [.usBankAccount]
        let intent = try await purse.setupIntents.create(params, by: purse.secret, request: purse.request)
        let link = SetupIntentLinkParameters(clientSecret: intent.clientSecret, paymentMethodData: nil, hostedSurface: "customer_sheet")
        let session = try await purse.financialConnections.create(forSetupIntent: intent.id, link, by: purse.publishable)
        return (intent, session)
    }

    private func pageToken(_ purse: DomainHarness, _ session: FinancialConnectionsSession) -> String {
        DerivedSecrets(masterKey: purse.masterKey).testBankPageToken(session.id)
    }

    @Test func theClientSecretOpensItsSessionOnly() async throws {
        let purse = try await DomainHarness.make()
        let (_, session) = try await linkSession(purse)
        #expect(try await purse.financialConnections.receipt(clientSecret: session.clientSecret, by: purse.publishable).id == session.id)
        let forged = session.id + "_secret_" + String(repeating: "A", count: 24)
        await #expect(throws: PurseError.self) { try await purse.financialConnections.receipt(clientSecret: forged, by: purse.publishable) }
        let stranger = Credential(kind: .publishable, accountID: "acct_other", sourceID: "pk_other")
        await #expect(throws: PurseError.self) {
            try await purse.financialConnections.receipt(clientSecret: session.clientSecret, by: stranger)
        }
    }

    @Test func aSessionIsDecidedOnce() async throws {
        let purse = try await DomainHarness.make()
        let (_, session) = try await linkSession(purse)
        let token = pageToken(purse, session)
        let linked = try await purse.financialConnections.link(.test(.savings), session: session.id, token: token)
        #expect(linked.decidedNow)
        #expect(linked.session.linkedAccount?.subcategory == "savings")
        #expect(linked.session.linkedAccount?.last4 == "2227")
        let again = try await purse.financialConnections.link(.test(.checking), session: session.id, token: token)
        #expect(!again.decidedNow)
        #expect(again.session.linkedAccount == linked.session.linkedAccount)
        let cancelled = try await purse.financialConnections.cancel(session: session.id, token: token)
        #expect(!cancelled.decidedNow && cancelled.session.status == .succeeded)
        await #expect(throws: PurseError.self) {
            try await purse.financialConnections.link(.test(.checking), session: session.id, token: token + "x")
        }
    }

    @Test func typedNumbersAreCheckedBeforeAnythingIsLinked() async throws {
        let purse = try await DomainHarness.make()
        let (_, session) = try await linkSession(purse)
        let token = pageToken(purse, session)
        for (routing, account, param) in [("123456789", "000123456789", "routing_number"), ("110000000", "12", "account_number")] {
            do {
                _ = try await purse.financialConnections.link(
                    .entered(routingNumber: routing, accountNumber: account, subcategory: "checking"), session: session.id, token: token)
                Issue.record("\(routing)/\(account) was linked")
            } catch let error as PurseError {
                #expect(error.param == param)
            }
        }
        #expect(try await purse.financialConnections.receipt(clientSecret: session.clientSecret, by: purse.publishable).status == .pending)
    }

    @Test func aLinkedAccountSavesWithTheProcessorsVerdict() async throws {
        let purse = try await DomainHarness.make()
        let (intent, session) = try await linkSession(purse)
        _ = try await purse.financialConnections.link(.test(.closed), session: session.id, token: pageToken(purse, session))
        var confirm = SetupIntentConfirmParameters()
        confirm.clientSecret = intent.clientSecret
        var data = PaymentMethodCreateParameters(type: .usBankAccount)
        var bank = USBankAccountParameters()
        bank.linkAccountSession = session.id
        data.usBankAccount = bank
        data.billingDetails = BillingDetailsParameters(name: "Jenny Rosen")
        confirm.paymentMethodData = data
        confirm.mandateData = .online
        do {
            _ = try await purse.setupIntents.confirm(intent.id, confirm, by: purse.publishable, request: purse.request)
            Issue.record("a closed account was saved")
        } catch let error as PurseError {
            #expect(error.code == "account_closed" || error.declineCode == "account_closed" || error.message.contains("closed"))
        }
        let failed = try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret)
        #expect(failed.status == .requiresPaymentMethod)
        #expect(failed.lastSetupError?.paymentMethod?.usBankAccount?.financialConnectionsAccount != nil)
    }

    @Test func theSameAccountLinkedTwiceHasOneFingerprint() async throws {
        let purse = try await DomainHarness.make()
        var fingerprints: [String] = []
        for _ in 0..<2 {
            let (_, session) = try await linkSession(purse)
            _ = try await purse.financialConnections.link(
                .entered(routingNumber: "110000000", accountNumber: "000123456789", subcategory: "checking"), session: session.id,
                token: pageToken(purse, session))
            var params = PaymentMethodCreateParameters(type: .usBankAccount)
            var bank = USBankAccountParameters()
            bank.linkAccountSession = session.id
            params.usBankAccount = bank
            let method = try await purse.paymentMethods.create(params, by: purse.secret)
            fingerprints.append(try #require(method.usBankAccount?.fingerprint))
        }
        #expect(fingerprints[0] == fingerprints[1])
    }

    @Test func theAppIsNamedWhileTheSessionIsPendingOnly() async throws {
        let purse = try await DomainHarness.make()
        let (_, session) = try await linkSession(purse)
        var params = SynchronizeParameters(clientSecret: session.clientSecret, mobile: .init(applicationID: "com.example.one"))
        let first = try await purse.financialConnections.synchronize(params, by: purse.publishable)
        #expect(first.manifest.successURL == "stripe-auth://link-accounts/com.example.one/success")
        #expect(first.manifest.hostedAuthURL.hasPrefix("http://purse.test/v1/financial_connections/test_bank/"))
        _ = try await purse.financialConnections.cancel(session: session.id, token: pageToken(purse, session))
        params.mobile = .init(applicationID: "com.example.two")
        let later = try await purse.financialConnections.synchronize(params, by: purse.publishable)
        #expect(later.manifest.cancelURL == "stripe-auth://link-accounts/com.example.one/cancel")
    }
}
