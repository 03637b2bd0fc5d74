import PurseModels

/// `duplicate_cards: reuse` (spec §4): a client saving a card the customer already has (same
/// fingerprint) gets the saved method back instead of a copy; a new expiry updates the saved one.
enum DuplicateCards {
    /// The saved method to use instead of attaching `candidate`, or nil to attach it as usual.
    static func reuse(
        _ candidate: String, for customer: String, settings: CustomerSheetSettings, caller: Credential, request: RequestInfo?,
        in repositories: Repositories
    ) async throws -> PaymentMethod? {
        guard settings.duplicateCards == "reuse" else { return nil }
        let account = Visibility(account: caller.accountID)
        guard let new = try await repositories.paymentMethods.find(candidate, visibleTo: account, lock: false)?.model,
            let card = new.card
        else { return nil }
        let saved = try await repositories.paymentMethods.latestCard(
            fingerprint: card.fingerprint, customer: customer, excluding: candidate, account: caller.accountID
        )
        guard let saved, var savedCard = saved.card else { return nil }
        guard savedCard.expMonth != card.expMonth || savedCard.expYear != card.expYear else { return saved }
        savedCard.expMonth = card.expMonth
        savedCard.expYear = card.expYear
        var updated = saved
        updated.card = savedCard
        try await repositories.paymentMethods.update(updated, account: caller.accountID)
        if let event = try NewEvent("payment_method.updated", from: saved, to: updated, account: caller.accountID, request: request) {
            try await repositories.events.record(event)
        }
        return updated
    }
}
