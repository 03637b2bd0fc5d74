public import PurseModels

/// Co-badged cards: a card that runs on a local network as well as its brand's (Cartes Bancaires
/// with Visa or Mastercard), whose holder may choose the network (`card[networks][preferred]`,
/// Stripe's card brand choice).
public enum CardNetworks {
    /// The networks a holder may prefer, as Stripe accepts them.
    public enum Preferred: String, Sendable, CaseIterable, ParameterEnum {
        case cartesBancaires = "cartes_bancaires"
        case mastercard, visa
    }

    /// What Stripe stores when the preferred network is not one the card runs on.
    public static let invalidPreference = "invalid_preference"

    /// The card's `networks`: the ones it runs on, and the holder's choice among them (or
    /// `invalid_preference`, as Stripe stores a choice that does not apply to the card).
    public static func networks(available: [String], preferred: Preferred?) -> CardDetails.Networks {
        guard let preferred else { return CardDetails.Networks(available: available) }
        return CardDetails.Networks(
            available: available, preferred: available.contains(preferred.rawValue) ? preferred.rawValue : invalidPreference
        )
    }

    /// `card.display_brand`: the network the holder chose, else the brand's own.
    static func displayBrand(brand: CardBrand, networks: CardDetails.Networks) -> String {
        guard let preferred = networks.preferred, preferred != invalidPreference, preferred != brand.rawValue else {
            return brand.displayBrand
        }
        return preferred
    }
}
