/// `POST /v1/billing_portal/sessions`.
public struct BillingPortalSessionParameters: Decodable, Sendable {
    public var customer: String
    public var configuration: String?
    public var flowData: FlowData?
    public var locale: Locale?
    public var onBehalfOf: String?
    public var returnURL: String?

    enum CodingKeys: String, CodingKey {
        case customer, configuration
        case flowData = "flow_data"
        case locale
        case onBehalfOf = "on_behalf_of"
        case returnURL = "return_url"
    }

    public struct FlowData: Decodable, Sendable {
        public var type: FlowType
        public var afterCompletion: AfterCompletion?

        enum CodingKeys: String, CodingKey {
            case type
            case afterCompletion = "after_completion"
        }
    }

    /// Stripe's flow types; Purse serves `payment_method_update` (the others need subscriptions
    /// or change customer details).
    public enum FlowType: String, ParameterEnum {
        case customerUpdate = "customer_update"
        case paymentMethodUpdate = "payment_method_update"
        case subscriptionPause = "subscription_pause"
        case subscriptionCancel = "subscription_cancel"
        case subscriptionUpdate = "subscription_update"
        case subscriptionUpdateConfirm = "subscription_update_confirm"
    }

    public struct AfterCompletion: Decodable, Sendable {
        public var type: AfterCompletionType
        public var redirect: Redirect?
        public var hostedConfirmation: HostedConfirmation?

        enum CodingKeys: String, CodingKey {
            case type, redirect
            case hostedConfirmation = "hosted_confirmation"
        }
    }

    public enum AfterCompletionType: String, ParameterEnum {
        case hostedConfirmation = "hosted_confirmation"
        case portalHomepage = "portal_homepage"
        case redirect
    }

    public struct Redirect: Decodable, Sendable {
        public var returnURL: String

        enum CodingKeys: String, CodingKey {
            case returnURL = "return_url"
        }
    }

    public struct HostedConfirmation: Decodable, Sendable {
        public var customMessage: String?

        enum CodingKeys: String, CodingKey {
            case customMessage = "custom_message"
        }
    }

    /// The locales Stripe's portal has; `auto` follows the customer's browser.
    public struct Locale: Decodable, Sendable, Hashable {
        public let value: String

        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard PortalLocale.stripeLocales.contains(text) else {
                throw PurseError.invalidParameter(
                    "locale", "Invalid locale: must be one of \(PortalLocale.stripeLocales.sorted().joined(separator: ", "))",
                    code: "parameter_invalid"
                )
            }
            value = text
        }
    }
}
