import PurseModels
import Testing

@testable import PurseCore

/// Attaching and detaching: who may attach what, the limit per customer, detaching for good, and
/// what a customer session's features allow.
@Suite("Attach and detach, in memory")
struct AttachmentTests {
    @Test func aMethodAttachedToAnotherCustomerIsRefused() async throws {
        let purse = try await DomainHarness.make()
        let first = try await purse.customer()
        let second = try await purse.customer()
        let method = try await purse.attach(to: first)
        let error = await #expect(throws: PurseError.self) { try await purse.attach(method.id, to: second) }
        #expect(error?.code == "payment_method_unexpected_state")
        #expect(error?.message.contains("already been attached") == true)
        #expect(try await purse.listed(second).ids.isEmpty)
    }

    @Test func aCustomersCredentialDoesNotLearnAnotherCustomersMethodExists() async throws {
        let purse = try await DomainHarness.make()
        let first = try await purse.customer()
        let second = try await purse.customer()
        let method = try await purse.attach(to: first)
        let key = purse.ephemeralKey(second)
        let attachError = await #expect(throws: PurseError.self) { try await purse.attach(method.id, to: second, by: key) }
        #expect(attachError?.code == "resource_missing")
        let retrieveError = await #expect(throws: PurseError.self) { _ = try await purse.paymentMethods.retrieve(method.id, by: key) }
        #expect(retrieveError?.code == "resource_missing")
        let otherCustomer = await #expect(throws: PurseError.self) { try await purse.attach("pm_card_visa", to: first, by: key) }
        #expect(otherCustomer?.param == "customer")
    }

    @Test func attachingToTheSameCustomerAgainChangesNothing() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let method = try await purse.attach(to: customer)
        let types = try await purse.eventTypes {
            let again = try await purse.attach(method.id, to: customer)
            #expect(again == method)
        }
        #expect(types.isEmpty)
    }

    @Test func aDetachedMethodIsDetachedForGood() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let method = try await purse.attach(to: customer)
        _ = try await purse.paymentMethods.detach(method.id, by: purse.secret, request: purse.request)
        let error = await #expect(throws: PurseError.self) { try await purse.attach(method.id, to: customer) }
        #expect(error?.code == "payment_method_unexpected_state")
        #expect(error?.message.contains("may not be used again") == true)
        let again = await #expect(throws: PurseError.self) {
            _ = try await purse.paymentMethods.detach(method.id, by: purse.secret, request: purse.request)
        }
        #expect(again?.code == "payment_method_unexpected_state")
    }

    @Test func aCardTheProcessorDeclinesIsNotAttachedNorStored() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let error = await #expect(throws: PurseError.self) { try await purse.attach("pm_card_chargeDeclined", to: customer) }
        #expect(error?.code == "card_declined")
        #expect(error?.declineCode == "generic_decline")
        #expect(await purse.database.snapshot().paymentMethods.isEmpty)
    }

    @Test func aCustomerHoldsAtMostFiveHundredMethods() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        try await purse.seedAttachedCards(499, to: customer)
        try await purse.attach(to: customer)  // the 500th
        let error = await #expect(throws: PurseError.self) { try await purse.attach(to: customer) }
        #expect(error?.code == "customer_max_payment_methods")
        let state = await purse.database.snapshot()
        #expect(state.paymentMethods.values.count { $0.customerID == customer } == 500)
        // The refused attach changed nothing: the token's method went with its transaction.
        #expect(state.paymentMethods.count == 500)
    }

    @Test func aSessionWithoutRemoveCannotDetach() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let method = try await purse.attach(to: customer)
        _ = try await purse.attach("pm_card_mastercard", to: customer)
        let session = purse.session(customer, remove: false, removeLast: true)
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.paymentMethods.detach(method.id, by: session, request: purse.request)
        }
        #expect(error?.code == "customer_session_remove_disabled")
        #expect(error?.category == .permission)
        #expect(try await purse.listed(customer).ids.contains(method.id))
    }

    @Test func aSessionWithoutRemoveLastKeepsTheLastMethod() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let first = try await purse.attach(to: customer)
        let second = try await purse.attach("pm_card_mastercard", to: customer)
        let session = purse.session(customer, remove: true, removeLast: false)
        _ = try await purse.paymentMethods.detach(first.id, by: session, request: purse.request)
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.paymentMethods.detach(second.id, by: session, request: purse.request)
        }
        #expect(error?.code == "customer_session_remove_last_disabled")
        #expect(try await purse.listed(customer).ids == [second.id])
        // With remove_last enabled the last one goes.
        let permissive = purse.session(customer, remove: true, removeLast: true)
        _ = try await purse.paymentMethods.detach(second.id, by: permissive, request: purse.request)
        #expect(try await purse.listed(customer).ids.isEmpty)
    }

    @Test func anUnattachedMethodCannotBeUpdated() async throws {
        let purse = try await DomainHarness.make()
        let method = try await purse.card()
        var params = PaymentMethodUpdateParameters()
        params.allowRedisplay = .always
        let error = await #expect(throws: PurseError.self) {
            _ = try await purse.paymentMethods.update(method.id, params, by: purse.secret, request: purse.request)
        }
        #expect(error?.code == "payment_method_unexpected_state")
    }

    @Test func updatingAnAttachedMethodRecordsWhatChanged() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let method = try await purse.attach(to: customer)
        var params = PaymentMethodUpdateParameters()
        params.allowRedisplay = .always
        let updated = try await purse.paymentMethods.update(method.id, params, by: purse.secret, request: purse.request)
        #expect(updated.allowRedisplay == "always")
        let event = try #require(try await purse.events.list(.init(), account: purse.account).data.first)
        #expect(event.type == "payment_method.updated")
        #expect(event.data.previousAttributes == ["allow_redisplay": "unspecified"])
        // The same update again changes nothing and records nothing.
        let types = try await purse.eventTypes {
            _ = try await purse.paymentMethods.update(method.id, params, by: purse.secret, request: purse.request)
        }
        #expect(types.isEmpty)
    }
}

/// `duplicate_cards: reuse`: a client saving a card the customer has already gets the saved one.
@Suite("Duplicate cards, in memory")
struct DuplicateCardTests {
    @Test func aClientSavingTheSameCardAgainGetsTheSavedOneWithTheNewExpiry() async throws {
        let purse = try await DomainHarness.make()
        var params = SheetSettingsParameters()
        params.duplicateCards = .set(.reuse)
        try await purse.updateDefaultSettings(params)
        let customer = try await purse.customer()
        let key = purse.ephemeralKey(customer)
        let saved = try await purse.attach(try await purse.card(expYear: 2040, by: key).id, to: customer, by: key)

        let copy = try await purse.card(expYear: 2041, by: key)
        var result: PaymentMethod?
        let types = try await purse.eventTypes { result = try await purse.attach(copy.id, to: customer, by: key) }
        #expect(result?.id == saved.id)
        #expect(result?.card?.expYear == 2041)
        #expect(types == ["payment_method.updated"])
        #expect(try await purse.listed(customer).ids == [saved.id])
        #expect(try await purse.paymentMethods.retrieve(saved.id, by: purse.secret).card?.expYear == 2041)
        let event = try #require(try await purse.events.list(.init(), account: purse.account).data.first)
        #expect(event.data.previousAttributes?["card"]?["exp_year"] == 2040)
    }

    @Test func underAllowTheSameCardIsSavedTwice() async throws {
        let purse = try await DomainHarness.make()
        let customer = try await purse.customer()
        let key = purse.ephemeralKey(customer)
        let first = try await purse.attach(try await purse.card(by: key).id, to: customer, by: key)
        let second = try await purse.attach(try await purse.card(by: key).id, to: customer, by: key)
        #expect(first.id != second.id)
        #expect(first.card?.fingerprint == second.card?.fingerprint)
        #expect(Set(try await purse.listed(customer).ids) == [first.id, second.id])
    }

    @Test func theSecretKeyIsNeverDeduplicated() async throws {
        let purse = try await DomainHarness.make()
        var params = SheetSettingsParameters()
        params.duplicateCards = .set(.reuse)
        try await purse.updateDefaultSettings(params)
        let customer = try await purse.customer()
        let first = try await purse.attach(try await purse.card().id, to: customer)
        let second = try await purse.attach(try await purse.card().id, to: customer)
        #expect(first.id != second.id)
        #expect(try await purse.listed(customer).ids.count == 2)
    }

    @Test func aClientsConfirmationOfASavedCardUsesTheSavedOne() async throws {
        let purse = try await DomainHarness.make()
        var params = SheetSettingsParameters()
        params.duplicateCards = .set(.reuse)
        let reuse = try await purse.sheetSettings.create(params, by: purse.secret)
        let customer = try await purse.customer()
        let saved = try await purse.attach("pm_card_visa", to: customer)
        var create = SetupIntentCreateParameters()
        create.customer = customer
        let intent = try await purse.setupIntents.create(create, by: purse.secret, request: purse.request)
        var confirm = SetupIntentConfirmParameters()
        confirm.paymentMethod = "pm_card_visa"
        let types = try await purse.eventTypes {
            let done = try await purse.setupIntents.confirm(
                intent.id, confirm, by: purse.ephemeralKey(customer, settings: reuse.id), request: purse.request
            )
            #expect(done.status == .succeeded)
            #expect(done.paymentMethod == saved.id)
        }
        #expect(types == ["setup_intent.succeeded"])
        #expect(try await purse.listed(customer).ids == [saved.id])
    }

    /// The settings a client's key was created with decide a confirmation (named > the key's >
    /// default), also when the authentication page finishes it after 3D Secure: the key's
    /// `duplicate_cards: reuse` still reuses the saved card instead of saving a copy.
    @Test func aConfirmationFinishedAfterAuthenticationKeepsTheKeysSettings() async throws {
        let purse = try await DomainHarness.make()
        var params = SheetSettingsParameters()
        params.duplicateCards = .set(.reuse)
        let reuse = try await purse.sheetSettings.create(params, by: purse.secret)
        let customer = try await purse.customer()
        let saved = try await purse.attach("pm_card_authenticationRequiredOnSetup", to: customer)
        let key = purse.ephemeralKey(customer, settings: reuse.id)
        var create = SetupIntentCreateParameters()
        create.customer = customer
        let intent = try await purse.setupIntents.create(create, by: purse.secret, request: purse.request)
        var confirm = SetupIntentConfirmParameters()
        confirm.paymentMethod = "pm_card_authenticationRequiredOnSetup"
        let pending = try await purse.setupIntents.confirm(intent.id, confirm, by: key, request: purse.request)
        #expect(pending.status == .requiresAction)
        let (done, _) = try await purse.setupIntents.completeAuthentication(
            intent.id, token: try DomainHarness.authenticationToken(pending), succeeded: true, request: purse.request
        )
        #expect(done.status == .succeeded)
        #expect(done.paymentMethod == saved.id)
    }
}
