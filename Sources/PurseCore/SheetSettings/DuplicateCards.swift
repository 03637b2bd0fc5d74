import Postgres
import PurseModels

/// `duplicate_cards: reuse` (spec §4): a client saving a card the customer already has (same
/// fingerprint) gets the saved method back instead of a copy; a new expiry updates the saved one.
enum DuplicateCards {
    /// The saved method to use instead of attaching `candidate`, or nil to attach it as usual.
    static func reuse(
        _ candidate: String, for customer: String, settings: CustomerSheetSettings, caller: Credential, request: RequestInfo,
        events: EventRecorder, on connection: isolated PostgresConnection
    ) async throws -> PaymentMethod? {
        guard settings.duplicateCards == "reuse" else { return nil }
        let owner = Credential(kind: .secret, accountID: caller.accountID, sourceID: caller.sourceID)
        guard let new = try await PaymentMethodStore.find(candidate, by: owner, on: connection)?.model, let card = new.card else {
            return nil
        }
        let rows = try await connection.query(
            """
            SELECT \(unsafeSQL: PaymentMethodStore.columns) FROM payment_methods
            WHERE account_id = \(caller.accountID) AND customer_id = \(customer) AND state = 'attached' AND type = 'card'
              AND fingerprint = \(card.fingerprint) AND id <> \(candidate)
            ORDER BY created DESC, seq DESC LIMIT 1
            FOR UPDATE
            """
        )
        guard let saved = try rows.first.map(PaymentMethodStore.paymentMethod), var savedCard = saved.card else { return nil }
        guard savedCard.expMonth != card.expMonth || savedCard.expYear != card.expYear else { return saved }
        savedCard.expMonth = card.expMonth
        savedCard.expYear = card.expYear
        var updated = saved
        updated.card = savedCard
        try await connection.query(
            """
            UPDATE payment_methods
            SET details = \(PaymentMethodStore.details(of: updated)), card_exp_month = \(Int32(card.expMonth)),
                card_exp_year = \(Int32(card.expYear))
            WHERE id = \(saved.id) AND account_id = \(caller.accountID)
            """
        )
        let encoder = JSONValueEncoder()
        let before = try encoder.encode(saved)
        let after = try encoder.encode(updated)
        try await events.record(
            "payment_method.updated", object: after, previousAttributes: AttributeDiff.previousAttributes(from: before, to: after),
            account: caller.accountID, request: request, on: connection
        )
        return updated
    }
}
