public import Postgres
public import PurseModels

/// `GET|POST /v1/customers/{id}/selected_payment_option`: the customer's choice, on the server.
public struct SelectedOptionService: Sendable {
    private let pool: PostgresClient
    private let events = EventRecorder()

    public init(pool: PostgresClient) { self.pool = pool }

    public func retrieve(customer: String, by caller: Credential) async throws -> SelectedPaymentOption {
        try await pool.withConnection { connection in
            try await Self.current(customer, by: caller, on: connection)
        }
    }

    /// Selects a payment method (which becomes the default), `apple_pay`, `link`, or nothing.
    /// `param` names the parameter that carried the option, for errors.
    public func select(
        _ option: Patch<String>, customer: String, by caller: Credential, request: RequestInfo, param: String = "option"
    ) async throws -> SelectedPaymentOption {
        let events = self.events
        return try await pool.withTransaction(retryingConflicts: 2) { connection in
            let locked = try await CustomerService.lockActive(customer, by: caller, on: connection)
            switch option {
            case .clear:
                try await DefaultPaymentMethod.select(nil, of: locked, caller: caller, on: connection)
            case .set(let value):
                if let wallet = DefaultPaymentMethod.Wallet(rawValue: value) {
                    try await DefaultPaymentMethod.select(wallet, of: locked, caller: caller, on: connection)
                } else {
                    _ = try await DefaultPaymentMethod.set(
                        value, of: locked, caller: caller, request: request, param: param, events: events, on: connection
                    )
                }
            }
            return try await Self.current(customer, by: caller, on: connection)
        }
    }

    static func current(_ customer: String, by caller: Credential, on connection: isolated PostgresConnection) async throws -> SelectedPaymentOption {
        if let own = caller.customerID, own != customer { throw PurseError.noSuch("customer", customer, param: "id") }
        let rows = try await connection.query(
            """
            SELECT c.selected_option, c.default_payment_method, \(unsafeSQL: prefixed(PaymentMethodStore.columns))
            FROM customers c
            LEFT JOIN payment_methods pm ON pm.id = c.default_payment_method AND c.selected_option = 'payment_method'
            WHERE c.id = \(customer) AND c.account_id = \(caller.accountID) AND NOT c.deleted
            """
        )
        guard let row = rows.first else { throw PurseError.noSuch("customer", customer, param: "id") }
        let selected: String? = try row["selected_option"]
        guard let selected else { return SelectedPaymentOption(customer: customer, option: nil, paymentMethod: nil) }
        guard selected == "payment_method" else {
            return SelectedPaymentOption(customer: customer, option: selected, paymentMethod: nil)
        }
        let method = try PaymentMethodStore.paymentMethod(row)
        return await SelectedPaymentOption(
            customer: customer, option: method.id, paymentMethod: method,
            unavailableReason: try unavailableReason(method, for: caller, on: connection)
        )
    }

    /// Why the sheet could not show the selected method under the settings in force: `expired`,
    /// or `filtered` when the saved-method filter hides it (spec §4).
    static func unavailableReason(_ method: PaymentMethod, for caller: Credential, on connection: isolated PostgresConnection) async throws -> String?
    {
        let now = Clock.now
        if let card = method.card, (card.expYear, card.expMonth) < (Calendar.year(of: now), Calendar.month(of: now)) {
            return "expired"
        }
        let settings = try await SheetSettingsService.inForce(for: caller, in: PostgresDatabase.repositories(on: connection))
        let visible = try await connection.query(
            """
            SELECT \(settings.savedPaymentMethodFilter.condition(now: now)) AS visible
            FROM payment_methods WHERE id = \(method.id) AND account_id = \(caller.accountID)
            """
        )
        return try visible.first?["visible", as: Bool.self] == false ? "filtered" : nil
    }

    /// `pm.id, pm.created, ...` from the store's column list.
    private static func prefixed(_ columns: String) -> String {
        columns.split(separator: ",").map { "pm." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
    }
}
