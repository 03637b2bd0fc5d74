/// `billing_portal.configuration`: what a customer may do on the portal's pages. Purse's portal
/// is the payment-method part of Stripe's, so `payment_method_update` is the one feature that can
/// be turned on; the others are shown as Stripe shows them switched off.
public struct BillingPortalConfiguration: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "billing_portal.configuration"
    public var active: Bool
    public var application: String?
    public var businessProfile: BusinessProfile
    public var created: Int
    public var defaultReturnURL: String?
    public var features: Features
    public var isDefault: Bool
    public var livemode: Bool = false
    public var loginPage: LoginPage = LoginPage()
    public var metadata: Metadata
    public var name: String?
    public var updated: Int

    public init(
        id: String, active: Bool, businessProfile: BusinessProfile, created: Int, defaultReturnURL: String?,
        paymentMethodUpdate: Bool, isDefault: Bool, metadata: Metadata, name: String?, updated: Int
    ) {
        self.id = id
        self.active = active
        self.businessProfile = businessProfile
        self.created = created
        self.defaultReturnURL = defaultReturnURL
        self.features = Features(paymentMethodUpdate: PaymentMethodUpdate(enabled: paymentMethodUpdate))
        self.isDefault = isDefault
        self.metadata = metadata
        self.name = name
        self.updated = updated
    }

    /// A new configuration as Stripe makes one: active, payment methods on, nothing else set.
    public static func initial(id: String, isDefault: Bool, now: Int) -> BillingPortalConfiguration {
        BillingPortalConfiguration(
            id: id, active: true, businessProfile: BusinessProfile(), created: now, defaultReturnURL: nil, paymentMethodUpdate: true,
            isDefault: isDefault, metadata: [:], name: nil, updated: now
        )
    }

    enum CodingKeys: String, CodingKey {
        case id, object, active, application
        case businessProfile = "business_profile"
        case created
        case defaultReturnURL = "default_return_url"
        case features
        case isDefault = "is_default"
        case livemode
        case loginPage = "login_page"
        case metadata, name, updated
    }

    /// `business_profile`: the merchant's headline and links, shown on the pages.
    public struct BusinessProfile: Codable, Sendable, Hashable {
        public var headline: String?
        public var privacyPolicyURL: String?
        public var termsOfServiceURL: String?

        public init(headline: String? = nil, privacyPolicyURL: String? = nil, termsOfServiceURL: String? = nil) {
            self.headline = headline
            self.privacyPolicyURL = privacyPolicyURL
            self.termsOfServiceURL = termsOfServiceURL
        }

        enum CodingKeys: String, CodingKey {
            case headline
            case privacyPolicyURL = "privacy_policy_url"
            case termsOfServiceURL = "terms_of_service_url"
        }
    }

    public struct Features: Codable, Sendable, Hashable {
        public var customerUpdate = CustomerUpdate()
        public var invoiceHistory = Switch(enabled: false)
        public var paymentMethodUpdate: PaymentMethodUpdate
        public var subscriptionCancel = SubscriptionCancel()
        public var subscriptionPause = Switch(enabled: false)
        public var subscriptionUpdate = SubscriptionUpdate()

        public init(paymentMethodUpdate: PaymentMethodUpdate) {
            self.paymentMethodUpdate = paymentMethodUpdate
        }

        enum CodingKeys: String, CodingKey {
            case customerUpdate = "customer_update"
            case invoiceHistory = "invoice_history"
            case paymentMethodUpdate = "payment_method_update"
            case subscriptionCancel = "subscription_cancel"
            case subscriptionPause = "subscription_pause"
            case subscriptionUpdate = "subscription_update"
        }
    }

    public struct Switch: Codable, Sendable, Hashable {
        public var enabled: Bool

        public init(enabled: Bool) { self.enabled = enabled }
    }

    /// `features.payment_method_update`: the portal's one feature. Which types may be added is
    /// the sheet settings' `payment_method_types`, so there is no payment method configuration.
    public struct PaymentMethodUpdate: Codable, Sendable, Hashable {
        public var enabled: Bool
        public var paymentMethodConfiguration: String?

        public init(enabled: Bool) { self.enabled = enabled }

        enum CodingKeys: String, CodingKey {
            case enabled
            case paymentMethodConfiguration = "payment_method_configuration"
        }
    }

    /// `features.customer_update`, always off: the portal changes payment methods only.
    public struct CustomerUpdate: Codable, Sendable, Hashable {
        public var allowedUpdates: [String] = []
        public var enabled = false

        enum CodingKeys: String, CodingKey {
            case allowedUpdates = "allowed_updates"
            case enabled
        }
    }

    /// `features.subscription_cancel`, always off: Purse keeps no subscriptions.
    public struct SubscriptionCancel: Codable, Sendable, Hashable {
        public var cancellationReason = CancellationReason()
        public var enabled = false
        public var mode = "at_period_end"
        public var prorationBehavior = "none"

        enum CodingKeys: String, CodingKey {
            case cancellationReason = "cancellation_reason"
            case enabled, mode
            case prorationBehavior = "proration_behavior"
        }

        public struct CancellationReason: Codable, Sendable, Hashable {
            public var enabled = false
            public var options: [String] = []
        }
    }

    /// `features.subscription_update`, always off: Purse keeps no subscriptions.
    public struct SubscriptionUpdate: Codable, Sendable, Hashable {
        public var billingCycleAnchor: String?
        public var defaultAllowedUpdates: [String] = []
        public var enabled = false
        public var products: [String] = []
        public var prorationBehavior = "none"
        public var scheduleAtPeriodEnd = ScheduleAtPeriodEnd()
        public var trialUpdateBehavior = "end_trial"

        enum CodingKeys: String, CodingKey {
            case billingCycleAnchor = "billing_cycle_anchor"
            case defaultAllowedUpdates = "default_allowed_updates"
            case enabled, products
            case prorationBehavior = "proration_behavior"
            case scheduleAtPeriodEnd = "schedule_at_period_end"
            case trialUpdateBehavior = "trial_update_behavior"
        }

        public struct ScheduleAtPeriodEnd: Codable, Sendable, Hashable {
            public var conditions: [String] = []
        }
    }

    /// `login_page`, always off: a customer reaches the portal through a session the merchant makes.
    public struct LoginPage: Codable, Sendable, Hashable {
        public var enabled = false
        public var url: String?
    }
}
