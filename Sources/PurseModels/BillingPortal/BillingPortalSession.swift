/// `billing_portal.session`: a customer's way onto the portal's pages. Its `url` is a bearer
/// credential for that one customer, so it is shown once, in the answer that creates the session,
/// and is null everywhere else (events included): Purse never stores it.
public struct BillingPortalSession: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "billing_portal.session"
    /// Stripe's recovery of an expired session through a customer login; Purse has no login page.
    public var afterExpiration: String?
    public var configuration: String
    public var created: Int
    public var customer: String
    /// Stripe's Accounts v2 customer; Purse's customers are v1 customers, so always null.
    public var customerAccount: String?
    public var flow: Flow?
    public var livemode: Bool = false
    public var locale: String?
    public var onBehalfOf: String?
    public var returnURL: String?
    public var url: String?

    public init(
        id: String, configuration: String, created: Int, customer: String, flow: Flow?, locale: String?, returnURL: String?,
        url: String?
    ) {
        self.id = id
        self.configuration = configuration
        self.created = created
        self.customer = customer
        self.flow = flow
        self.locale = locale
        self.returnURL = returnURL
        self.url = url
    }

    enum CodingKeys: String, CodingKey {
        case id, object
        case afterExpiration = "after_expiration"
        case configuration, created, customer
        case customerAccount = "customer_account"
        case flow, livemode, locale
        case onBehalfOf = "on_behalf_of"
        case returnURL = "return_url"
        case url
    }

    /// `flow`: the one task a session opens on (Purse serves `payment_method_update`), and where
    /// the customer goes once it is done.
    public struct Flow: Codable, Sendable, Hashable {
        public var afterCompletion: AfterCompletion
        /// The flows' subjects Purse does not serve (subscriptions, customer details): always null.
        public var customerUpdate: String?
        public var subscriptionCancel: String?
        public var subscriptionUpdate: String?
        public var subscriptionUpdateConfirm: String?
        public var type: String

        public init(afterCompletion: AfterCompletion, type: String) {
            self.afterCompletion = afterCompletion
            self.type = type
        }

        enum CodingKeys: String, CodingKey {
            case afterCompletion = "after_completion"
            case customerUpdate = "customer_update"
            case subscriptionCancel = "subscription_cancel"
            case subscriptionUpdate = "subscription_update"
            case subscriptionUpdateConfirm = "subscription_update_confirm"
            case type
        }
    }

    /// `flow.after_completion`: `portal_homepage`, `redirect` (to `redirect.return_url`) or
    /// `hosted_confirmation` (a page with `custom_message`).
    public struct AfterCompletion: Codable, Sendable, Hashable {
        public var hostedConfirmation: HostedConfirmation?
        public var redirect: Redirect?
        public var type: String

        public init(hostedConfirmation: HostedConfirmation? = nil, redirect: Redirect? = nil, type: String) {
            self.hostedConfirmation = hostedConfirmation
            self.redirect = redirect
            self.type = type
        }

        enum CodingKeys: String, CodingKey {
            case hostedConfirmation = "hosted_confirmation"
            case redirect, type
        }
    }

    public struct HostedConfirmation: Codable, Sendable, Hashable {
        public var customMessage: String?

        public init(customMessage: String?) { self.customMessage = customMessage }

        enum CodingKeys: String, CodingKey {
            case customMessage = "custom_message"
        }
    }

    public struct Redirect: Codable, Sendable, Hashable {
        public var returnURL: String

        public init(returnURL: String) { self.returnURL = returnURL }

        enum CodingKeys: String, CodingKey {
            case returnURL = "return_url"
        }
    }
}
