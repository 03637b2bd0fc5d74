import PurseModels

/// `enabled` / `disabled`.
public enum FeatureToggle: String, Sendable, CaseIterable, ParameterEnum { case enabled, disabled }

/// `POST /v1/customer_sessions`: `customer` and `components`, both required, at least one enabled.
public struct CustomerSessionCreateParameters: Decodable, Sendable {
    public var customer: String
    public var components: Components
    /// Sheet settings for the session (an id or `default`); otherwise the account's default.
    public var customerSheetSettings: String?

    enum CodingKeys: String, CodingKey {
        case customer, components
        case customerSheetSettings = "customer_sheet_settings"
    }

    public struct Components: Decodable, Sendable {
        public var buyButton: Toggle?
        public var pricingTable: Toggle?
        public var customerSheet: CustomerSheet?
        public var mobilePaymentElement: MobilePaymentElement?
        public var paymentElement: PaymentElement?

        enum CodingKeys: String, CodingKey {
            case buyButton = "buy_button"
            case pricingTable = "pricing_table"
            case customerSheet = "customer_sheet"
            case mobilePaymentElement = "mobile_payment_element"
            case paymentElement = "payment_element"
        }
    }

    public struct Toggle: Decodable, Sendable { public var enabled: Bool }

    public struct CustomerSheet: Decodable, Sendable {
        public var enabled: Bool
        public var features: Features?

        public struct Features: Decodable, Sendable {
            public var paymentMethodAllowRedisplayFilters: [AllowRedisplay]?
            public var paymentMethodRemove: FeatureToggle?
            public var paymentMethodRemoveLast: FeatureToggle?
            public var paymentMethodSyncDefault: FeatureToggle?

            enum CodingKeys: String, CodingKey {
                case paymentMethodAllowRedisplayFilters = "payment_method_allow_redisplay_filters"
                case paymentMethodRemove = "payment_method_remove"
                case paymentMethodRemoveLast = "payment_method_remove_last"
                case paymentMethodSyncDefault = "payment_method_sync_default"
            }
        }
    }

    public struct MobilePaymentElement: Decodable, Sendable {
        public var enabled: Bool
        public var features: Features?

        public struct Features: Decodable, Sendable {
            public var paymentMethodAllowRedisplayFilters: [AllowRedisplay]?
            public var paymentMethodRedisplay: FeatureToggle?
            public var paymentMethodRemove: FeatureToggle?
            public var paymentMethodRemoveLast: FeatureToggle?
            public var paymentMethodSave: FeatureToggle?
            public var paymentMethodSaveAllowRedisplayOverride: AllowRedisplay?
            public var paymentMethodSetAsDefault: FeatureToggle?

            enum CodingKeys: String, CodingKey {
                case paymentMethodAllowRedisplayFilters = "payment_method_allow_redisplay_filters"
                case paymentMethodRedisplay = "payment_method_redisplay"
                case paymentMethodRemove = "payment_method_remove"
                case paymentMethodRemoveLast = "payment_method_remove_last"
                case paymentMethodSave = "payment_method_save"
                case paymentMethodSaveAllowRedisplayOverride = "payment_method_save_allow_redisplay_override"
                case paymentMethodSetAsDefault = "payment_method_set_as_default"
            }
        }
    }

    public struct PaymentElement: Decodable, Sendable {
        public var enabled: Bool
        public var features: Features?

        public struct Features: Decodable, Sendable {
            public enum SaveUsage: String, Sendable, CaseIterable, ParameterEnum {
                case onSession = "on_session"
                case offSession = "off_session"
            }

            public var paymentMethodAllowRedisplayFilters: [AllowRedisplay]?
            public var paymentMethodRedisplay: FeatureToggle?
            public var paymentMethodRedisplayLimit: Int?
            public var paymentMethodRemove: FeatureToggle?
            public var paymentMethodSave: FeatureToggle?
            public var paymentMethodSaveUsage: SaveUsage?

            enum CodingKeys: String, CodingKey {
                case paymentMethodAllowRedisplayFilters = "payment_method_allow_redisplay_filters"
                case paymentMethodRedisplay = "payment_method_redisplay"
                case paymentMethodRedisplayLimit = "payment_method_redisplay_limit"
                case paymentMethodRemove = "payment_method_remove"
                case paymentMethodSave = "payment_method_save"
                case paymentMethodSaveUsage = "payment_method_save_usage"
            }
        }
    }

    /// The components as the session keeps them: every component present, Stripe's defaults
    /// filled in (`payment_method_allow_redisplay_filters` `["always"]`, removal and saving
    /// disabled, `payment_method_remove_last` enabled), features null when disabled.
    func resolvedComponents() throws -> CustomerSessionComponents {
        let sheet = components.customerSheet
        let mobile = components.mobilePaymentElement
        let element = components.paymentElement
        let enabled = [components.buyButton?.enabled, components.pricingTable?.enabled, sheet?.enabled, mobile?.enabled, element?.enabled]
        guard enabled.contains(true) else {
            throw PurseError.invalidParameter("components", "Enable at least one component (components[customer_sheet][enabled]=true, say).")
        }
        if let limit = element?.features?.paymentMethodRedisplayLimit, !(1...10).contains(limit) {
            throw PurseError.invalidParameter(
                "components[payment_element][features][payment_method_redisplay_limit]", "The limit must be between 1 and 10."
            )
        }
        func filters(_ value: [AllowRedisplay]?, _ param: String) throws -> [String] {
            guard let value else { return ["always"] }
            guard !value.isEmpty else { throw PurseError.invalidParameter(param, "Give at least one filter value.") }
            return value.map(\.rawValue)
        }
        let sheetFeatures = try sheet.flatMap { component -> CustomerSheetFeatures? in
            guard component.enabled else { return nil }
            let features = component.features
            return CustomerSheetFeatures(
                allowRedisplayFilters: try filters(
                    features?.paymentMethodAllowRedisplayFilters,
                    "components[customer_sheet][features][payment_method_allow_redisplay_filters]"
                ),
                remove: (features?.paymentMethodRemove ?? .disabled).rawValue,
                removeLast: (features?.paymentMethodRemoveLast ?? .enabled).rawValue,
                syncDefault: (features?.paymentMethodSyncDefault ?? .disabled).rawValue
            )
        }
        let mobileFeatures = try mobile.flatMap { component -> MobilePaymentElementFeatures? in
            guard component.enabled else { return nil }
            let features = component.features
            return MobilePaymentElementFeatures(
                allowRedisplayFilters: try filters(
                    features?.paymentMethodAllowRedisplayFilters,
                    "components[mobile_payment_element][features][payment_method_allow_redisplay_filters]"
                ),
                redisplay: (features?.paymentMethodRedisplay ?? .disabled).rawValue,
                remove: (features?.paymentMethodRemove ?? .disabled).rawValue,
                removeLast: (features?.paymentMethodRemoveLast ?? .enabled).rawValue,
                save: (features?.paymentMethodSave ?? .disabled).rawValue,
                saveAllowRedisplayOverride: features?.paymentMethodSaveAllowRedisplayOverride?.rawValue,
                setAsDefault: (features?.paymentMethodSetAsDefault ?? .disabled).rawValue
            )
        }
        let elementFeatures = try element.flatMap { component -> PaymentElementFeatures? in
            guard component.enabled else { return nil }
            let features = component.features
            return PaymentElementFeatures(
                allowRedisplayFilters: try filters(
                    features?.paymentMethodAllowRedisplayFilters,
                    "components[payment_element][features][payment_method_allow_redisplay_filters]"
                ),
                redisplay: (features?.paymentMethodRedisplay ?? .disabled).rawValue,
                redisplayLimit: features?.paymentMethodRedisplayLimit ?? 3,
                remove: (features?.paymentMethodRemove ?? .disabled).rawValue,
                save: (features?.paymentMethodSave ?? .disabled).rawValue,
                saveUsage: features?.paymentMethodSaveUsage?.rawValue
            )
        }
        return CustomerSessionComponents(
            buyButton: .init(enabled: components.buyButton?.enabled ?? false),
            customerSheet: .init(enabled: sheet?.enabled ?? false, features: sheetFeatures),
            mobilePaymentElement: .init(enabled: mobile?.enabled ?? false, features: mobileFeatures),
            paymentElement: .init(enabled: element?.enabled ?? false, features: elementFeatures),
            pricingTable: .init(enabled: components.pricingTable?.enabled ?? false)
        )
    }
}
