/// What `POST /v1/financial_connections/sessions/synchronize` answers: the session's manifest,
/// which sends both mobile SDKs to the hosted (web) flow at `hosted_auth_url`, and the visual
/// settings their decoders require.
///
/// The keys are the union of what stripe-ios's `FinancialConnectionsSessionManifest` and FC Lite
/// `LinkAccountSessionManifest`, and stripe-android's `FinancialConnectionsSessionManifest` and
/// `SynchronizeSessionResponse`, require (docs/replays/). No `features` and no
/// `experiment_assignments`: both SDKs then take the web flow.
public struct FinancialConnectionsSynchronization: Codable, Sendable, Hashable {
    public var manifest: Manifest
    public var text: JSONValue = .null
    public var visual: Visual = Visual()

    public init(manifest: Manifest) {
        self.manifest = manifest
    }

    public struct Manifest: Codable, Sendable, Hashable {
        public var id: String
        public var allowManualEntry = false
        public var appVerificationEnabled = false
        public var cancelURL: String
        public var consentAcquiredAt: Int? = nil
        public var consentRequired = false
        public var customManualEntryHandling = false
        public var disableLinkMoreAccounts = true
        public var hostedAuthURL: String
        public var instantVerificationDisabled = false
        public var institutionSearchDisabled = false
        public var livemode = false
        public var manualEntryMode = "automatic"
        public var manualEntryUsesMicrodeposits = false
        public var mobileHandoffEnabled = false
        public var nextPane = "consent"
        public var paymentMethodType = "us_bank_account"
        public var permissions = ["payment_method"]
        public var product = "payment_flows"
        public var singleAccount = true
        public var successURL: String
        public var useSingleSortSearch = false

        public init(id: String, hostedAuthURL: String, successURL: String, cancelURL: String) {
            self.id = id
            self.hostedAuthURL = hostedAuthURL
            self.successURL = successURL
            self.cancelURL = cancelURL
        }

        enum CodingKeys: String, CodingKey {
            case id
            case allowManualEntry = "allow_manual_entry"
            case appVerificationEnabled = "app_verification_enabled"
            case cancelURL = "cancel_url"
            case consentAcquiredAt = "consent_acquired_at"
            case consentRequired = "consent_required"
            case customManualEntryHandling = "custom_manual_entry_handling"
            case disableLinkMoreAccounts = "disable_link_more_accounts"
            case hostedAuthURL = "hosted_auth_url"
            case instantVerificationDisabled = "instant_verification_disabled"
            case institutionSearchDisabled = "institution_search_disabled"
            case livemode
            case manualEntryMode = "manual_entry_mode"
            case manualEntryUsesMicrodeposits = "manual_entry_uses_microdeposits"
            case mobileHandoffEnabled = "mobile_handoff_enabled"
            case nextPane = "next_pane"
            case paymentMethodType = "payment_method_type"
            case permissions, product
            case singleAccount = "single_account"
            case successURL = "success_url"
            case useSingleSortSearch = "use_single_sort_search"
        }
    }

    /// `visual`: stripe-android's newest decoder requires all three.
    public struct Visual: Codable, Sendable, Hashable {
        public var reducedBranding = false
        public var reduceManualEntryProminenceInErrors = false
        public var merchantLogo: [String] = []

        public init() {}

        enum CodingKeys: String, CodingKey {
            case reducedBranding = "reduced_branding"
            case reduceManualEntryProminenceInErrors = "reduce_manual_entry_prominence_in_errors"
            case merchantLogo = "merchant_logo"
        }
    }
}
