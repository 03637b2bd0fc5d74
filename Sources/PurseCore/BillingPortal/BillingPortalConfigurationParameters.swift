import PurseModels

/// `POST /v1/billing_portal/configurations` and `POST /v1/billing_portal/configurations/{id}`.
/// Every field of an update is optional; a create without `features[payment_method_update]`
/// gets the feature on, as Stripe's default configuration has it.
public struct BillingPortalConfigurationParameters: Decodable, Sendable {
    public var active: Bool?
    public var businessProfile: BusinessProfileParameters?
    public var defaultReturnURL: Patch<String>?
    public var features: FeaturesParameters?
    public var loginPage: SwitchParameter?
    public var metadata: Patch<MetadataParameter>?
    public var name: Patch<String>?

    enum CodingKeys: String, CodingKey {
        case active
        case businessProfile = "business_profile"
        case defaultReturnURL = "default_return_url"
        case features
        case loginPage = "login_page"
        case metadata, name
    }

    public struct BusinessProfileParameters: Decodable, Sendable {
        public var headline: Patch<String>?
        public var privacyPolicyURL: Patch<String>?
        public var termsOfServiceURL: Patch<String>?

        enum CodingKeys: String, CodingKey {
            case headline
            case privacyPolicyURL = "privacy_policy_url"
            case termsOfServiceURL = "terms_of_service_url"
        }
    }

    /// Stripe's features. Only `payment_method_update` can be turned on: the others belong to
    /// invoices, subscriptions and customer details, which the portal does not serve, and may be
    /// sent switched off.
    public struct FeaturesParameters: Decodable, Sendable {
        public var customerUpdate: CustomerUpdateParameters?
        public var invoiceHistory: SwitchParameter?
        public var paymentMethodUpdate: PaymentMethodUpdateParameters?
        public var subscriptionCancel: SwitchParameter?
        public var subscriptionPause: SwitchParameter?
        public var subscriptionUpdate: SwitchParameter?

        enum CodingKeys: String, CodingKey {
            case customerUpdate = "customer_update"
            case invoiceHistory = "invoice_history"
            case paymentMethodUpdate = "payment_method_update"
            case subscriptionCancel = "subscription_cancel"
            case subscriptionPause = "subscription_pause"
            case subscriptionUpdate = "subscription_update"
        }
    }

    public struct PaymentMethodUpdateParameters: Decodable, Sendable {
        public var enabled: Bool?
        /// Stripe's payment method configuration; the sheet settings' `payment_method_types`
        /// decide here, so it may only be left empty.
        public var paymentMethodConfiguration: Patch<String>?

        enum CodingKeys: String, CodingKey {
            case enabled
            case paymentMethodConfiguration = "payment_method_configuration"
        }
    }

    public struct CustomerUpdateParameters: Decodable, Sendable {
        public var enabled: Bool?
        public var allowedUpdates: Patch<[String]>?

        enum CodingKeys: String, CodingKey {
            case enabled
            case allowedUpdates = "allowed_updates"
        }
    }

    public struct SwitchParameter: Decodable, Sendable {
        public var enabled: Bool?
    }
}

extension BillingPortalConfigurationParameters {
    /// `configuration` with these parameters applied, checked as Stripe checks them; features
    /// the portal does not serve may only be sent switched off.
    func applied(to configuration: BillingPortalConfiguration, creating: Bool) throws -> BillingPortalConfiguration {
        var result = configuration
        if let active { result.active = active }
        if let profile = businessProfile {
            if let headline = profile.headline {
                result.businessProfile.headline = try TextRules.limited(headline.value, to: 60, param: "business_profile[headline]")
            }
            if let url = profile.privacyPolicyURL {
                result.businessProfile.privacyPolicyURL = try Self.webURL(url.value, param: "business_profile[privacy_policy_url]")
            }
            if let url = profile.termsOfServiceURL {
                result.businessProfile.termsOfServiceURL = try Self.webURL(url.value, param: "business_profile[terms_of_service_url]")
            }
        }
        if let url = defaultReturnURL { result.defaultReturnURL = try ReturnURL.checked(url.value, param: "default_return_url") }
        if let name { result.name = try TextRules.limited(name.value, to: 256, param: "name") }
        result.metadata = try MetadataRules.updated(configuration.metadata, with: metadata)
        if let loginPage {
            guard let enabled = loginPage.enabled else { throw PurseError.missingParameter("login_page[enabled]") }
            try Self.refuseEnabling(enabled, "login_page[enabled]", "a login page")
        }
        if let features {
            if let update = features.paymentMethodUpdate {
                guard let enabled = update.enabled else { throw PurseError.missingParameter("features[payment_method_update][enabled]") }
                result.features.paymentMethodUpdate.enabled = enabled
                if update.paymentMethodConfiguration?.value != nil {
                    throw PurseError.invalidParameter(
                        "features[payment_method_update][payment_method_configuration]",
                        "Purse has no payment method configurations: the sheet settings' payment_method_types decide what may be added."
                    )
                }
            }
            if let customerUpdate = features.customerUpdate {
                if creating, customerUpdate.enabled == nil { throw PurseError.missingParameter("features[customer_update][enabled]") }
                try Self.refuseEnabling(customerUpdate.enabled ?? false, "features[customer_update][enabled]", "customer details")
                if let allowed = customerUpdate.allowedUpdates?.value, !allowed.isEmpty {
                    throw PurseError.invalidParameter(
                        "features[customer_update][allowed_updates]",
                        "Purse's portal shows payment methods only: customer details cannot be updated there."
                    )
                }
            }
            for (feature, name, what) in [
                (features.invoiceHistory, "invoice_history", "invoices"), (features.subscriptionCancel, "subscription_cancel", "subscriptions"),
                (features.subscriptionPause, "subscription_pause", "subscriptions"),
                (features.subscriptionUpdate, "subscription_update", "subscriptions"),
            ] {
                guard let feature else { continue }
                let param = "features[\(name)][enabled]"
                guard let enabled = feature.enabled else {
                    if creating || name == "invoice_history" { throw PurseError.missingParameter(param) }
                    continue
                }
                try Self.refuseEnabling(enabled, param, what)
            }
        }
        return result
    }

    private static func refuseEnabling(_ enabled: Bool, _ param: String, _ what: String) throws {
        guard !enabled else {
            throw PurseError.invalidParameter(
                param, "Purse's portal serves payment methods only, not \(what): \(param) can only be false."
            )
        }
    }

    /// An http(s) URL for a link on the pages, or nil when cleared.
    private static func webURL(_ text: String?, param: String) throws -> String? {
        guard let checked = try ReturnURL.checked(text, param: param) else { return nil }
        guard checked.lowercased().hasPrefix("https://") || checked.lowercased().hasPrefix("http://") else {
            throw PurseError.invalidParameter(param, "\(param) must be an http or https URL.", code: "url_invalid")
        }
        return checked
    }
}
