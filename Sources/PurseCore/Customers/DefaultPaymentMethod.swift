import PurseModels

/// The customer's default payment method and selected option (spec §4), changed only under the
/// customer's row lock: setting the default selects it; selecting a method sets the default;
/// selecting Apple Pay or Link keeps the default for off-session use; detaching the default
/// clears both.
enum DefaultPaymentMethod {
    /// Makes `method` (attached to the locked customer) the default and the selection.
    static func set(
        _ method: String, of stored: StoredCustomer, caller: Credential, request: RequestInfo, param: String,
        in repositories: Repositories
    ) async throws -> Customer {
        guard try await repositories.paymentMethods.isAttached(method, to: stored.customer.id, account: caller.accountID) else {
            throw notAttached(method, param: param)
        }
        var updated = stored
        updated.customer.invoiceSettings.defaultPaymentMethod = method
        updated.selectedOption = .paymentMethod
        try await save(from: stored, to: updated, caller: caller, request: request, in: repositories)
        return updated.customer
    }

    /// Clears the default when it is `method` (being detached), and a selection of it.
    static func clearIfDefault(
        _ method: String, of stored: StoredCustomer, caller: Credential, request: RequestInfo, in repositories: Repositories
    ) async throws {
        guard stored.customer.invoiceSettings.defaultPaymentMethod == method else { return }
        var updated = stored
        updated.customer.invoiceSettings.defaultPaymentMethod = nil
        updated.selectedOption = selection(of: stored, withDefault: nil)
        try await save(from: stored, to: updated, caller: caller, request: request, in: repositories)
    }

    /// Selects a wallet, or nothing; the default stays for off-session use.
    static func select(
        _ wallet: SelectedOption?, of stored: StoredCustomer, caller: Credential, in repositories: Repositories
    )
        async throws
    {
        var updated = stored
        updated.selectedOption = wallet
        guard updated != stored else { return }
        try await repositories.customers.update(updated, account: caller.accountID)
    }

    /// The selection once the default becomes `newDefault`: a new default is selected; a cleared
    /// default takes a selection of it along; an unchanged one leaves the selection alone.
    static func selection(of stored: StoredCustomer, withDefault newDefault: String?) -> SelectedOption? {
        guard newDefault != stored.customer.invoiceSettings.defaultPaymentMethod else { return stored.selectedOption }
        if newDefault != nil { return .paymentMethod }
        return stored.selectedOption == .paymentMethod ? nil : stored.selectedOption
    }

    /// Refuses a default that is not attached to the customer.
    static func notAttached(_ method: String, param: String) -> PurseError {
        PurseError(
            .invalidRequest, code: "resource_missing",
            message: "No such PaymentMethod: '\(method)'. The payment method must be attached to the customer.",
            param: param
        )
    }

    /// Writes the change, with a `customer.updated` event when the customer object changed.
    private static func save(
        from old: StoredCustomer, to new: StoredCustomer, caller: Credential, request: RequestInfo, in repositories: Repositories
    ) async throws {
        guard old != new else { return }
        try await repositories.customers.update(new, account: caller.accountID)
        if let event = try NewEvent("customer.updated", from: old.customer, to: new.customer, account: caller.accountID, request: request) {
            try await repositories.events.record(event)
        }
    }
}
