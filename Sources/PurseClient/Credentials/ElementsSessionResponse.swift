import PurseModels

/// The parts of `GET /v1/elements/sessions` the adapter reads: with a customer session, the
/// customer's saved methods and the session's key; always, the sheet settings in force (Purse's
/// top-level `customer_sheet_settings`). ``ElementsSession`` keeps `customer` as free-form JSON.
struct ElementsSessionResponse: Decodable, Sendable {
    let customer: SessionCustomer?
    let customerSheetSettings: CustomerSheetSettings?

    enum CodingKeys: String, CodingKey {
        case customer
        case customerSheetSettings = "customer_sheet_settings"
    }

    /// `customer`.
    struct SessionCustomer: Decodable, Sendable {
        let paymentMethods: [PaymentMethod]
        let defaultPaymentMethod: String?
        let customerSession: SessionKey

        enum CodingKeys: String, CodingKey {
            case paymentMethods = "payment_methods"
            case defaultPaymentMethod = "default_payment_method"
            case customerSession = "customer_session"
        }
    }

    /// `customer.customer_session`: the key the session hands out, and when it expires.
    struct SessionKey: Decodable, Sendable {
        let apiKey: String
        let apiKeyExpiry: Int
        let customer: String

        enum CodingKeys: String, CodingKey {
            case apiKey = "api_key"
            case apiKeyExpiry = "api_key_expiry"
            case customer
        }
    }
}
