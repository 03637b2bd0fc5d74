public import PurseModels

/// `GET|POST /v1/customers/{id}/selected_payment_option`: the customer's choice, on the server.
public struct SelectedOptionService: Sendable {
    private let database: any Database

    public init(database: any Database) { self.database = database }

    public func retrieve(customer: String, by caller: Credential) async throws -> SelectedPaymentOption {
        try await database.autocommit { try await Self.current(customer, by: caller, in: $0) }
    }

    /// Selects a payment method (which becomes the default), `apple_pay`, `link`, or nothing.
    /// `param` names the parameter that carried the option, for errors.
    public func select(
        _ option: Patch<String>, customer: String, by caller: Credential, request: RequestInfo, param: String = "option"
    ) async throws -> SelectedPaymentOption {
        try await database.transaction(retryingConflicts: 2) { repositories in
            let locked = try await CustomerAccess.lockLive(customer, by: caller, in: repositories)
            switch option {
            case .clear:
                try await DefaultPaymentMethod.select(nil, of: locked, caller: caller, in: repositories)
            case .set(let value):
                if let wallet = SelectedOption(rawValue: value), wallet != .paymentMethod {
                    try await DefaultPaymentMethod.select(wallet, of: locked, caller: caller, in: repositories)
                } else {
                    _ = try await DefaultPaymentMethod.set(value, of: locked, caller: caller, request: request, param: param, in: repositories)
                }
            }
            return try await Self.current(customer, by: caller, in: repositories)
        }
    }

    static func current(_ customer: String, by caller: Credential, in repositories: Repositories) async throws -> SelectedPaymentOption {
        guard let selection = try await repositories.customers.selection(of: customer, visibleTo: caller.visibility) else {
            throw PurseError.noSuch("customer", customer, param: "id")
        }
        guard let option = selection.option else { return SelectedPaymentOption(customer: customer, option: nil, paymentMethod: nil) }
        guard option == .paymentMethod, let method = selection.paymentMethod else {
            return SelectedPaymentOption(customer: customer, option: option.rawValue, paymentMethod: nil)
        }
        return SelectedPaymentOption(
            customer: customer, option: method.id, paymentMethod: method,
            unavailableReason: try await unavailableReason(method, for: caller, now: selection.clockTime ?? Clock.now, in: repositories)
        )
    }

    /// Why the sheet could not show the selected method under the settings in force: `expired`,
    /// or `filtered` when the saved-method filter hides it (spec §4). `now` is the customer's:
    /// its test clock's time when it is on one.
    static func unavailableReason(
        _ method: PaymentMethod, for caller: Credential, now: Int, in repositories: Repositories
    ) async throws -> String? {
        if let card = method.card, (card.expYear, card.expMonth) < (Calendar.year(of: now), Calendar.month(of: now)) {
            return "expired"
        }
        let settings = try await SheetSettingsService.inForce(for: caller, in: repositories)
        let passes = try await repositories.paymentMethods.passes(
            method.id, account: caller.accountID, filter: settings.savedPaymentMethodFilter, now: now
        )
        return passes ? nil : "filtered"
    }
}
