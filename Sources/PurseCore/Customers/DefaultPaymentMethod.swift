import Postgres
import PurseModels

/// The customer's default payment method and selected option (spec §4), changed only under the
/// customer's row lock: setting the default selects it; selecting a method sets the default;
/// selecting Apple Pay or Link keeps the default for off-session use; detaching the default
/// clears both.
enum DefaultPaymentMethod {
    /// What `selected_option` may hold besides a payment method.
    enum Wallet: String {
        case applePay = "apple_pay"
        case link
    }

    /// Makes `method` (attached to `customer`, whose row is locked) the default and the selection.
    static func set(
        _ method: String, of customer: Customer, caller: Credential, request: RequestInfo, param: String,
        events: EventRecorder, on connection: isolated PostgresConnection
    ) async throws -> Customer {
        let attached = try await connection.query(
            """
            SELECT 1 FROM payment_methods
            WHERE id = \(method) AND account_id = \(caller.accountID) AND customer_id = \(customer.id) AND state = 'attached'
            """
        )
        guard !attached.isEmpty else {
            throw PurseError(
                .invalidRequest, code: "resource_missing",
                message: "No such PaymentMethod: '\(method)'. The payment method must be attached to the customer.",
                param: param
            )
        }
        var updated = customer
        updated.invoiceSettings.defaultPaymentMethod = method
        try await connection.query(
            """
            UPDATE customers SET default_payment_method = \(method), selected_option = 'payment_method'
            WHERE id = \(customer.id) AND account_id = \(caller.accountID)
            """
        )
        try await recordChange(from: customer, to: updated, caller: caller, request: request, events: events, on: connection)
        return updated
    }

    /// Clears the default (and a selection of it).
    static func clear(
        of customer: Customer, caller: Credential, request: RequestInfo, events: EventRecorder,
        on connection: isolated PostgresConnection
    ) async throws -> Customer {
        var updated = customer
        updated.invoiceSettings.defaultPaymentMethod = nil
        try await connection.query(
            """
            UPDATE customers
            SET default_payment_method = NULL,
                selected_option = CASE WHEN selected_option = 'payment_method' THEN NULL ELSE selected_option END
            WHERE id = \(customer.id) AND account_id = \(caller.accountID)
            """
        )
        try await recordChange(from: customer, to: updated, caller: caller, request: request, events: events, on: connection)
        return updated
    }

    /// Clears the default when it is `method` (being detached).
    static func clearIfDefault(
        _ method: String, of customer: Customer, caller: Credential, request: RequestInfo, events: EventRecorder,
        on connection: isolated PostgresConnection
    ) async throws {
        guard customer.invoiceSettings.defaultPaymentMethod == method else { return }
        _ = try await clear(of: customer, caller: caller, request: request, events: events, on: connection)
    }

    /// Selects a wallet, or nothing; the default stays for off-session use.
    static func select(_ wallet: Wallet?, of customer: Customer, caller: Credential, on connection: isolated PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE customers SET selected_option = \(wallet?.rawValue)
            WHERE id = \(customer.id) AND account_id = \(caller.accountID)
            """
        )
    }

    private static func recordChange(
        from old: Customer, to new: Customer, caller: Credential, request: RequestInfo, events: EventRecorder,
        on connection: isolated PostgresConnection
    ) async throws {
        guard old != new else { return }
        let encoder = JSONValueEncoder()
        let before = try encoder.encode(old)
        let after = try encoder.encode(new)
        try await events.record(
            "customer.updated", object: after, previousAttributes: AttributeDiff.previousAttributes(from: before, to: after),
            account: caller.accountID, request: request, on: connection
        )
    }
}
