import PurseModels
import Testing

@testable import PurseCore

/// The setup intent's state machine, through ``SetupIntentService`` on the in-memory database:
/// each move, its event, and the moves it refuses.
@Suite("Setup intents, in memory")
struct SetupIntentStateMachineTests {
    private func confirm(
        _ purse: DomainHarness, _ id: String, method: String? = nil, mandate: MandateDataParameters? = nil
    ) async throws -> SetupIntent {
        var params = SetupIntentConfirmParameters()
        params.paymentMethod = method
        params.mandateData = mandate
        params.returnURL = "https://app.example/done"
        return try await purse.setupIntents.confirm(id, params, by: purse.secret, request: purse.request)
    }

    @Test func withoutAMethodItWaitsForOne() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent()
        #expect(intent.status == .requiresPaymentMethod)
        #expect(intent.paymentMethod == nil)
        #expect(intent.paymentMethodTypes == ["card"])
        #expect(await purse.eventTypes() == ["setup_intent.created"])
    }

    @Test func withATestTokenItStoresANewUnattachedMethodAndWaitsForConfirmation() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent(method: "pm_card_visa")
        #expect(intent.status == .requiresConfirmation)
        let method = try await purse.paymentMethods.retrieve(try #require(intent.paymentMethod), by: purse.secret)
        #expect(method.id != "pm_card_visa")
        #expect(method.customer == nil)
        #expect(method.card?.brand == "visa")
    }

    @Test func anApprovedConfirmationAttachesTheMethodAndSucceeds() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer)
        let types = try await purse.eventTypes {
            let confirmed = try await confirm(purse, intent.id, method: "pm_card_visa")
            #expect(confirmed.status == .succeeded)
            #expect(confirmed.lastSetupError == nil)
            let method = try await purse.paymentMethods.retrieve(try #require(confirmed.paymentMethod), by: purse.secret)
            #expect(method.customer == customer)
        }
        #expect(types == ["payment_method.attached", "setup_intent.succeeded"])
    }

    @Test func aThreeDSecureCardRequiresActionThenSucceedsOnAuthentication() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer)
        let pending = try await confirm(purse, intent.id, method: "pm_card_authenticationRequiredOnSetup")
        #expect(pending.status == .requiresAction)
        let methodID = try #require(pending.paymentMethod)
        #expect(try await purse.listed(customer).ids.isEmpty)  // not saved until authenticated

        let token = try DomainHarness.authenticationToken(pending)
        let types = try await purse.eventTypes {
            let (done, returnURL) = try await purse.setupIntents.completeAuthentication(
                intent.id, token: token, succeeded: true, request: purse.request
            )
            #expect(done.status == .succeeded)
            #expect(done.nextAction == nil)
            #expect(returnURL == "https://app.example/done")
        }
        #expect(types == ["payment_method.attached", "setup_intent.succeeded"])
        #expect(try await purse.listed(customer).ids == [methodID])
    }

    @Test func aFailedAuthenticationSendsTheIntentBackForAnotherMethod() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer)
        let pending = try await confirm(purse, intent.id, method: "pm_card_authenticationRequired")
        let token = try DomainHarness.authenticationToken(pending)
        let types = try await purse.eventTypes {
            let (failed, _) = try await purse.setupIntents.completeAuthentication(
                intent.id, token: token, succeeded: false, request: purse.request
            )
            #expect(failed.status == .requiresPaymentMethod)
            #expect(failed.paymentMethod == nil)
            #expect(failed.lastSetupError?.code == "setup_intent_authentication_failure")
            #expect(failed.lastSetupError?.paymentMethod?.id == pending.paymentMethod)
        }
        #expect(types == ["setup_intent.setup_failed"])
        #expect(try await purse.listed(customer).ids.isEmpty)
    }

    @Test func theAuthenticationPageRefusesAWrongToken() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent()
        _ = try await confirm(purse, intent.id, method: "pm_card_authenticationRequired")
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.setupIntents.completeAuthentication(intent.id, token: "forged", succeeded: true, request: purse.request)
        }
        #expect(error?.code == "resource_missing")
        let stored = try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret)
        #expect(stored.status == .requiresAction)
    }

    @Test func aDeclineThrowsButKeepsTheIntentWithItsLastSetupError() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let intent = try await purse.setupIntent(customer: customer)
        let before = await purse.database.recordedEvents().count
        let error = await #expect(throws: PurseError.self) {
            _ = try await confirm(purse, intent.id, method: "pm_card_chargeDeclinedInsufficientFunds")
        }
        #expect(error?.code == "card_declined")
        #expect(error?.declineCode == "insufficient_funds")
        #expect(error?.related["setup_intent"] != nil)

        let stored = try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret)
        #expect(stored.status == .requiresPaymentMethod)
        #expect(stored.paymentMethod == nil)
        #expect(stored.lastSetupError?.declineCode == "insufficient_funds")
        #expect(stored.lastSetupError?.type == "card_error")
        #expect(await purse.eventTypes().dropFirst(before) == ["setup_intent.setup_failed"])
        #expect(try await purse.listed(customer).ids.isEmpty)
    }

    @Test func aSucceededIntentCannotBeConfirmedUpdatedOrCanceled() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent(method: "pm_card_visa")
        _ = try await confirm(purse, intent.id)
        let before = await purse.database.snapshot().setupIntents[intent.id]?.stored

        let confirmError = await #expect(throws: PurseError.self) { _ = try await confirm(purse, intent.id, method: "pm_card_mastercard") }
        #expect(confirmError?.code == "setup_intent_unexpected_state")
        #expect(confirmError?.message.contains("status of succeeded") == true)
        let cancelError = await #expect(throws: PurseError.self) {
            _ = try await purse.setupIntents.cancel(intent.id, reason: nil, by: purse.secret, request: purse.request)
        }
        #expect(cancelError?.code == "setup_intent_unexpected_state")
        var update = SetupIntentUpdateParameters()
        update.description = .set("changed")
        await #expect(throws: PurseError.self) {
            _ = try await purse.setupIntents.update(intent.id, update, by: purse.secret, request: purse.request)
        }
        #expect(await purse.database.snapshot().setupIntents[intent.id]?.stored == before)
    }

    @Test func aCanceledIntentCannotBeConfirmed() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent(method: "pm_card_visa")
        let types = try await purse.eventTypes {
            let canceled = try await purse.setupIntents.cancel(
                intent.id, reason: .requestedByCustomer, by: purse.secret, request: purse.request
            )
            #expect(canceled.status == .canceled)
            #expect(canceled.cancellationReason == "requested_by_customer")
        }
        #expect(types == ["setup_intent.canceled"])
        let error = await #expect(throws: PurseError.self) { _ = try await confirm(purse, intent.id) }
        #expect(error?.code == "setup_intent_unexpected_state")
        #expect(error?.message.contains("status of canceled") == true)
    }

    @Test func updatingTheMethodOfAnIntentRequiringActionResetsItAndSpendsTheToken() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent()
        let pending = try await confirm(purse, intent.id, method: "pm_card_authenticationRequired")
        let oldToken = try DomainHarness.authenticationToken(pending)

        var update = SetupIntentUpdateParameters()
        update.paymentMethod = .set("pm_card_visa")
        let updated = try await purse.setupIntents.update(intent.id, update, by: purse.secret, request: purse.request)
        #expect(updated.status == .requiresConfirmation)
        #expect(updated.nextAction == nil)
        #expect(updated.paymentMethod != pending.paymentMethod)

        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.setupIntents.completeAuthentication(intent.id, token: oldToken, succeeded: true, request: purse.request)
        }
        #expect(error?.code == "resource_missing")
    }

    @Test func updatingOnlyTheDescriptionKeepsAnIntentRequiringAction() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent()
        let pending = try await confirm(purse, intent.id, method: "pm_card_authenticationRequired")
        var update = SetupIntentUpdateParameters()
        update.description = .set("Card for the subscription")
        let updated = try await purse.setupIntents.update(intent.id, update, by: purse.secret, request: purse.request)
        #expect(updated.status == .requiresAction)
        #expect(try DomainHarness.authenticationToken(updated) == DomainHarness.authenticationToken(pending))
    }

    @Test func clearingTheMethodSendsTheIntentBackToRequiresPaymentMethod() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent(method: "pm_card_visa")
        var update = SetupIntentUpdateParameters()
        update.paymentMethod = .clear
        let updated = try await purse.setupIntents.update(intent.id, update, by: purse.secret, request: purse.request)
        #expect(updated.status == .requiresPaymentMethod)
        #expect(updated.paymentMethod == nil)
    }

    @Test func theSweepCancelsOnlyIntentsLeftWaitingForADay() async throws {
        let purse = try await DomainHarness.make()
        let waiting = try await purse.setupIntent()
        let ready = try await purse.setupIntent(method: "pm_card_visa")
        let authenticating = try await confirm(purse, try await purse.setupIntent().id, method: "pm_card_authenticationRequired")
        #expect(try await purse.setupIntents.sweepAbandoned() == 0)

        await purse.database.advanceClock(by: 86_401)
        let types = try await purse.eventTypes {
            let canceled = try await purse.setupIntents.sweepAbandoned()
            #expect(canceled == 2)
        }
        #expect(types == ["setup_intent.canceled", "setup_intent.canceled"])
        for id in [waiting.id, authenticating.id] {
            let intent = try await purse.setupIntents.retrieve(id, clientSecret: nil, by: purse.secret)
            #expect(intent.status == .canceled)
            #expect(intent.cancellationReason == "abandoned")
        }
        #expect(try await purse.setupIntents.retrieve(ready.id, clientSecret: nil, by: purse.secret).status == .requiresConfirmation)
    }

    @Test(arguments: [(PaymentMethodType.sepaDebit, "pm_sepaDebit_success"), (.usBankAccount, "pm_usBankAccount_success")])
    func aBankDebitNeedsAMandate(type: PaymentMethodType, token: String) async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent(types: [type])
        let error = await #expect(throws: PurseError.self) { _ = try await confirm(purse, intent.id, method: token) }
        #expect(error?.code == "parameter_missing")
        #expect(error?.param == "mandate_data")
        #expect(try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret).status == .requiresPaymentMethod)

        let confirmed = try await confirm(purse, intent.id, method: token, mandate: .online)
        #expect(confirmed.status == .succeeded)
        #expect(confirmed.mandate?.hasPrefix("mandate_") == true)
    }

    @Test func aTypeThePaymentMethodTypesDoNotAllowIsRefusedAndNothingIsStored() async throws {
        let purse = try await DomainHarness.make()
        let intent = try await purse.setupIntent(types: [.card])
        let methodsBefore = await purse.database.snapshot().paymentMethods.count
        let error = await #expect(throws: PurseError.self) {
            _ = try await confirm(purse, intent.id, method: "pm_sepaDebit_success", mandate: .online)
        }
        #expect(error?.param == "payment_method")
        #expect(error?.message.contains("sepa_debit is not allowed") == true)
        #expect(await purse.database.snapshot().paymentMethods.count == methodsBefore)
        #expect(try await purse.setupIntents.retrieve(intent.id, clientSecret: nil, by: purse.secret).status == .requiresPaymentMethod)
    }

    @Test func createWithConfirmRefusesAMissingMandateBeforeStoringAnything() async throws {
        let purse = try await DomainHarness.make()
        var params = SetupIntentCreateParameters()
        params.paymentMethod = "pm_sepaDebit_success"
        params.paymentMethodTypes = [.sepaDebit]
        params.confirm = true
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.setupIntents.create(params, by: purse.secret, request: purse.request)
        }
        #expect(error?.param == "mandate_data")
        let state = await purse.database.snapshot()
        #expect(state.setupIntents.isEmpty)
        #expect(state.paymentMethods.isEmpty)
        #expect(state.events.isEmpty)
    }

    @Test func aMethodAttachedToAnotherCustomerCannotBeSetUpForThisOne() async throws {
        let purse = try await DomainHarness.make()
        let other = try await purse.customer()
        let theirs = try await purse.attach(to: other)
        let intent = try await purse.setupIntent(customer: try await purse.customer())
        let error = await #expect(throws: PurseError.self) { _ = try await confirm(purse, intent.id, method: theirs.id) }
        #expect(error?.code == "payment_method_unexpected_state")
        #expect(try await purse.paymentMethods.retrieve(theirs.id, by: purse.secret).customer == other)
    }
}
