import PurseModels

/// A setup intent as the publishable key with its client secret sees it: Stripe's documented
/// subset (`id`, `status`, `next_action`, `payment_method`, `last_setup_error`, ...), which the
/// full ``SetupIntent`` model cannot decode (it has no `metadata` or `customer`).
struct ClientSetupIntent: Decodable, Sendable {
    let id: String
    let status: String
    let nextAction: NextAction?
    /// The id, or the object when the request expanded it.
    let paymentMethod: Expandable<PaymentMethod>?
    let lastSetupError: SetupError?

    enum CodingKeys: String, CodingKey {
        case id, status
        case nextAction = "next_action"
        case paymentMethod = "payment_method"
        case lastSetupError = "last_setup_error"
    }
}

/// A field Stripe sends as an id, or as the object when it was expanded.
enum Expandable<Object: Decodable & Sendable>: Decodable, Sendable {
    case id(String)
    case object(Object)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let id = try? container.decode(String.self) {
            self = .id(id)
        } else {
            self = .object(try container.decode(Object.self))
        }
    }
}
