/// `payment_method.card`: what is kept of a card. Never the number or the CVC.
public struct CardDetails: Codable, Sendable, Hashable {
    public var brand: String
    public var checks: Checks
    public var country: String?
    public var displayBrand: String
    public var expMonth: Int
    public var expYear: Int
    public var fingerprint: String
    /// `credit`, `debit`, `prepaid` or `unknown`.
    public var funding: String
    public var generatedFrom: String?
    public var last4: String
    public var networks: Networks
    public var regulatedStatus: String = "unregulated"
    public var threeDSecureUsage: ThreeDSecureUsage
    public var wallet: String?

    public init(
        brand: String, checks: Checks, country: String?, displayBrand: String, expMonth: Int, expYear: Int,
        fingerprint: String, funding: String, last4: String, networks: Networks,
        threeDSecureUsage: ThreeDSecureUsage = ThreeDSecureUsage(supported: true)
    ) {
        self.brand = brand
        self.checks = checks
        self.country = country
        self.displayBrand = displayBrand
        self.expMonth = expMonth
        self.expYear = expYear
        self.fingerprint = fingerprint
        self.funding = funding
        self.last4 = last4
        self.networks = networks
        self.threeDSecureUsage = threeDSecureUsage
    }

    enum CodingKeys: String, CodingKey {
        case brand, checks, country
        case displayBrand = "display_brand"
        case expMonth = "exp_month"
        case expYear = "exp_year"
        case fingerprint, funding
        case generatedFrom = "generated_from"
        case last4, networks
        case regulatedStatus = "regulated_status"
        case threeDSecureUsage = "three_d_secure_usage"
        case wallet
    }

    /// `card.checks`: `pass`, `fail`, `unavailable`, `unchecked`, or null when not applicable.
    public struct Checks: Codable, Sendable, Hashable {
        public var addressLine1Check: String?
        public var addressPostalCodeCheck: String?
        public var cvcCheck: String?

        public init(addressLine1Check: String?, addressPostalCodeCheck: String?, cvcCheck: String?) {
            self.addressLine1Check = addressLine1Check
            self.addressPostalCodeCheck = addressPostalCodeCheck
            self.cvcCheck = cvcCheck
        }

        enum CodingKeys: String, CodingKey {
            case addressLine1Check = "address_line1_check"
            case addressPostalCodeCheck = "address_postal_code_check"
            case cvcCheck = "cvc_check"
        }
    }

    public struct Networks: Codable, Sendable, Hashable {
        public var available: [String]
        public var preferred: String?

        public init(available: [String], preferred: String? = nil) {
            self.available = available
            self.preferred = preferred
        }
    }

    public struct ThreeDSecureUsage: Codable, Sendable, Hashable {
        public var supported: Bool

        public init(supported: Bool) { self.supported = supported }
    }
}
