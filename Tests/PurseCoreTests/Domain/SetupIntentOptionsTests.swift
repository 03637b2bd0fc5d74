import PurseModels
import Testing

@testable import PurseCore

/// `payment_method_options` on setup intents: what each request may change, and how a
/// confirmation honours them (3D Secure on request, the card's network, microdeposits), on the
/// in-memory database.
@Suite("Setup intent options, in memory")
struct SetupIntentOptionsTests {
    private static let microdeposits = PaymentMethodOptionsParameters(usBankAccount: .init(verificationMethod: .microdeposits))

    private func confirm(
        _ purse: DomainHarness, _ id: String, method: String, options: PaymentMethodOptionsParameters? = nil
    ) async throws -> SetupIntent {
        var params = SetupIntentConfirmParameters()
        params.paymentMethod = method
        params.paymentMethodOptions = options
        params.mandateData = method.hasPrefix("pm_usBankAccount") ? .online : nil
        return try await purse.setupIntents.confirm(id, params, by: purse.secret, request: purse.request)
    }

    private func verify(_ purse: DomainHarness, _ id: String, code: String) async throws -> SetupIntent {
        try await purse.setupIntents.verifyMicrodeposits(
            id, SetupIntentVerifyMicrodepositsParameters(descriptorCode: code), by: purse.secret, request: purse.request
        )
    }

    // MARK: - What each request may change

    @Test func theNetworkIsTakenAtConfirmationOnly() throws {
        var options = SetupIntentOptions()
        let network = PaymentMethodOptionsParameters(card: .init(requestThreeDSecure: nil, network: .visa))
        #expect(throws: PurseError.self) { try options.apply(network, confirming: false) }
        try options.apply(network, confirming: true)
        #expect(options.network == .visa)
        try options.apply(nil, confirming: true)  // a confirmation without one clears it
        #expect(options.network == nil)
    }

    @Test func whatIsNotSentStays() throws {
        var options = SetupIntentOptions()
        try options.apply(.init(card: .init(requestThreeDSecure: .challenge, network: nil)), confirming: false)
        try options.apply(Self.microdeposits, confirming: false)
        #expect(options.requestThreeDSecure == .challenge)
        #expect(options.verificationMethod == .microdeposits)
        #expect(options.financialConnections == FinancialConnectionsLink())
    }

    @Test func financialConnectionsMustAskForThePaymentMethod() throws {
        var options = SetupIntentOptions()
        let balancesOnly = PaymentMethodOptionsParameters(
            usBankAccount: .init(financialConnections: .init(permissions: [.balances]))
        )
        let error = try #require(throws: PurseError.self) { try options.apply(balancesOnly, confirming: false) }
        #expect(error.param == "payment_method_options[us_bank_account][financial_connections][permissions]")
        #expect(options == SetupIntentOptions())
    }

    // MARK: - How a confirmation honours them

    @Test func aRequestedChallengeSendsAnApprovedCardThroughThreeDSecure() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let challenge = PaymentMethodOptionsParameters(card: .init(requestThreeDSecure: .challenge, network: nil))
        let intent = try await purse.setupIntent(customer: customer, types: [.card], options: challenge)
        let pending = try await confirm(purse, intent.id, method: "pm_card_visa")
        #expect(pending.status == .requiresAction)
        #expect(pending.nextAction?.type == "redirect_to_url")
    }

    @Test func aNetworkTheCardDoesNotRunOnChangesNothing() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer, types: [.card], options: nil)
        let onCartesBancaires = PaymentMethodOptionsParameters(card: .init(requestThreeDSecure: nil, network: .cartesBancaires))
        let types = try await purse.eventTypes {
            let error = try await #require(throws: PurseError.self) {
                try await confirm(purse, intent.id, method: "pm_card_visa", options: onCartesBancaires)
            }
            #expect(error.param == "payment_method_options[card][network]")
        }
        #expect(types.isEmpty)
        let after = try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret)
        #expect(after.status == .requiresPaymentMethod)
        #expect(after.paymentMethodOptions["card"]?["network"] == .null)
    }

    @Test func typedNumbersWaitForMicrodepositsThenTheCodeSavesThem() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer, types: [.usBankAccount], options: Self.microdeposits)
        let pending = try await confirm(purse, intent.id, method: "pm_usBankAccount_success")
        #expect(pending.status == .requiresAction)
        let action = try #require(pending.nextAction?.verifyWithMicrodeposits)
        #expect(action.microdepositType == "descriptor_code")
        #expect(action.hostedVerificationURL.contains("/verify_microdeposits/"))
        #expect(try await purse.listed(customer).ids.isEmpty)  // not saved until verified

        let types = try await purse.eventTypes {
            let done = try await verify(purse, intent.id, code: "sm11aa")
            #expect(done.status == .succeeded)
            #expect(done.nextAction == nil)
        }
        #expect(types == ["payment_method.attached", "setup_intent.succeeded"])
        #expect(try await purse.listed(customer).ids == [try #require(pending.paymentMethod)])
    }

    @Test func aWrongCodeCountsAndTheTenthEndsTheVerification() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer, types: [.usBankAccount], options: Self.microdeposits)
        _ = try await confirm(purse, intent.id, method: "pm_usBankAccount_success")
        for attempt in 1..<PendingMicrodeposits.maximumFailedAttempts {
            let error = try await #require(throws: PurseError.self) { try await verify(purse, intent.id, code: "SM00XX") }
            #expect(error.code == "payment_method_microdeposit_verification_descriptor_code_mismatch")
            #expect(error.message.contains("\(PendingMicrodeposits.maximumFailedAttempts - attempt) verification attempts"))
        }
        let last = try await #require(throws: PurseError.self) { try await verify(purse, intent.id, code: "SM00XX") }
        #expect(last.code == "payment_method_microdeposit_verification_attempts_exceeded")
        let failed = try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret)
        #expect(failed.status == .requiresPaymentMethod)
        #expect(failed.lastSetupError?.code == "payment_method_microdeposit_verification_attempts_exceeded")
        #expect(try await purse.listed(customer).ids.isEmpty)
    }

    @Test func unverifiedMicrodepositsFailAfterTenDays() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer, types: [.usBankAccount], options: Self.microdeposits)
        _ = try await confirm(purse, intent.id, method: "pm_usBankAccount_success")
        await purse.database.advanceClock(by: (PendingMicrodeposits.verificationDays - 1) * 86_400)
        #expect(try await purse.setupIntents.sweepAbandoned() == 0)  // not abandoned after a day: waiting

        await purse.database.advanceClock(by: 86_401)
        let types = try await purse.eventTypes {
            let moved = try await purse.setupIntents.sweepAbandoned()
            #expect(moved == 1)
        }
        #expect(types == ["setup_intent.setup_failed"])
        let failed = try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret)
        #expect(failed.status == .requiresPaymentMethod)
        #expect(failed.lastSetupError?.code == "payment_method_microdeposit_verification_timeout")
    }

    @Test func instantRefusesTypedNumbers() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let instant = PaymentMethodOptionsParameters(usBankAccount: .init(verificationMethod: .instant))
        let intent = try await purse.setupIntent(customer: customer, types: [.usBankAccount], options: instant)
        let error = try await #require(throws: PurseError.self) { try await confirm(purse, intent.id, method: "pm_usBankAccount_success") }
        #expect(error.param == "payment_method")
        let after = try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret)
        #expect(after.status == .requiresPaymentMethod)
        #expect(after.lastSetupError == nil)
    }
}
