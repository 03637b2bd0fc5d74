import Foundation
import PurseCore
import PurseModels
import PurseParameters

/// The portal's add form: its fields, which of them the sheet settings ask for, and their
/// translation into the parameters of a setup intent's confirmation, so that a method added on
/// the page passes the very checks an app's does. Errors come back naming a Stripe parameter
/// (`payment_method_data[card][number]`); ``field(for:)`` finds the input it belongs to.
struct PortalPaymentMethodForm: Sendable {
    enum Field: String, CaseIterable, Sendable {
        case cardNumber = "card_number"
        case cardExpiry = "card_expiry"
        case cardCVC = "card_cvc"
        case iban
        case name = "billing_name"
        case email = "billing_email"
        case phone = "billing_phone"
        case line1 = "billing_line1"
        case line2 = "billing_line2"
        case city = "billing_city"
        case state = "billing_state"
        case postalCode = "billing_postal_code"
        case country = "billing_country"

        /// Never shown again after a submit: card data, and the account number.
        var isSensitive: Bool { self == .cardNumber || self == .cardCVC || self == .iban }

        var autocomplete: String {
            switch self {
            case .cardNumber: "cc-number"
            case .cardExpiry: "cc-exp"
            case .cardCVC: "cc-csc"
            case .iban: "off"
            case .name: "name"
            case .email: "email"
            case .phone: "tel"
            case .line1: "address-line1"
            case .line2: "address-line2"
            case .city: "address-level2"
            case .state: "address-level1"
            case .postalCode: "postal-code"
            case .country: "country"
            }
        }

        func label(_ text: PortalText) -> String {
            switch self {
            case .cardNumber: text.cardNumber
            case .cardExpiry: text.expiry
            case .cardCVC: text.cvc
            case .iban: text.iban
            case .name: text.name
            case .email: text.email
            case .phone: text.phone
            case .line1: text.line1
            case .line2: text.line2
            case .city: text.city
            case .state: text.state
            case .postalCode: text.postalCode
            case .country: text.country
            }
        }

        /// The confirmation's parameter this field fills (`payment_method_data[card][number]`).
        var parameter: String { ParameterPath.nested(parameterInMethod, under: "payment_method_data") }

        /// The parameter within the payment method's own (`card[number]`).
        private var parameterInMethod: String {
            switch self {
            case .cardNumber: "card[number]"
            case .cardExpiry: "card[exp_month]"
            case .cardCVC: "card[cvc]"
            case .iban: "sepa_debit[iban]"
            case .name: "billing_details[name]"
            case .email: "billing_details[email]"
            case .phone: "billing_details[phone]"
            case .line1: "billing_details[address][line1]"
            case .line2: "billing_details[address][line2]"
            case .city: "billing_details[address][city]"
            case .state: "billing_details[address][state]"
            case .postalCode: "billing_details[address][postal_code]"
            case .country: "billing_details[address][country]"
            }
        }
    }

    /// What the form itself refuses before any parameter is decoded.
    enum Refusal: Error {
        case expiryFormat
    }

    let type: PaymentMethodType
    /// What the customer typed, by field.
    var values: [Field: String]
    let makeDefault: Bool

    init(type: PaymentMethodType, values: [Field: String] = [:], makeDefault: Bool) {
        self.type = type
        self.values = values
        self.makeDefault = makeDefault
    }

    /// Reads a submitted form; the type must be one the page offers.
    init(_ form: ParamObject, offered: [PaymentMethodType]) throws {
        guard case .string(let typeText)? = form["type"], let type = PaymentMethodType(rawValue: typeText), offered.contains(type) else {
            throw PurseError.invalidParameter("type", "type must be one of \(offered.map(\.rawValue).joined(separator: ", ")).")
        }
        self.type = type
        var values: [Field: String] = [:]
        for field in Field.allCases {
            if case .string(let value)? = form[field.rawValue] {
                let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
                if !trimmed.isEmpty { values[field] = trimmed }
            }
        }
        self.values = values
        makeDefault = form["make_default"] != nil
    }

    /// The fields the form shows for its type under `settings`, in order, and which are required.
    static func fields(for type: PaymentMethodType, settings: CustomerSheetSettings) -> [(field: Field, required: Bool)] {
        var fields: [(Field, Bool)] = type == .card ? [(.cardNumber, true), (.cardExpiry, true), (.cardCVC, true)] : [(.iban, true)]
        let collection = settings.billingDetailsCollection
        let needs: Set<String> = type == .sepaDebit ? ["name", "email"] : []
        func shown(_ mode: String, _ key: String) -> Bool { mode == "always" || (mode == "automatic" && needs.contains(key)) }
        if shown(collection.name, "name") { fields.append((.name, true)) }
        if shown(collection.email, "email") { fields.append((.email, true)) }
        if collection.phone == "always" { fields.append((.phone, true)) }
        if collection.address == "full" {
            fields += [(.line1, true), (.line2, false), (.city, true), (.state, false), (.postalCode, true), (.country, true)]
        }
        return fields
    }

    /// The confirmation's parameters, decoded as an API request's are. `ipAddress` and
    /// `userAgent` are the mandate's online acceptance for a bank debit.
    func confirmation(ipAddress: String, userAgent: String) throws -> SetupIntentConfirmParameters {
        var pairs: [(String, String)] = [("payment_method_data[type]", type.rawValue)]
        for (field, value) in values.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            switch field {
            case .cardExpiry:
                guard let (month, year) = Self.expiry(value) else { throw Refusal.expiryFormat }
                pairs.append(("payment_method_data[card][exp_month]", String(month)))
                pairs.append(("payment_method_data[card][exp_year]", String(year)))
            case .cardNumber:
                pairs.append((field.parameter, value.filter { $0 != " " && $0 != "-" }))
            case .iban:
                pairs.append((field.parameter, value.filter { $0 != " " }))
            case .country:
                pairs.append((field.parameter, value.uppercased()))
            default:
                pairs.append((field.parameter, value))
            }
        }
        if type != .card {
            pairs += [
                ("mandate_data[customer_acceptance][type]", "online"),
                ("mandate_data[customer_acceptance][online][ip_address]", ipAddress),
                ("mandate_data[customer_acceptance][online][user_agent]", userAgent),
            ]
        }
        let body = pairs.map { "\(Self.encoded($0.0))=\(Self.encoded($0.1))" }.joined(separator: "&")
        return try ParamDecoder().decode(SetupIntentConfirmParameters.self, from: try FormParser.parse(Array(body.utf8)))
    }

    /// The form's field a parameter of the confirmation belongs to.
    static func field(for param: String?) -> Field? {
        guard let param else { return nil }
        if param.hasPrefix("payment_method_data[card][exp_") { return .cardExpiry }
        return Field.allCases.first { param == $0.parameter }
    }

    /// `MM / YY`, `MM/YY`, `MMYY` or `MM / YYYY`.
    static func expiry(_ text: String) -> (month: Int, year: Int)? {
        let digits = text.split(whereSeparator: { $0 == "/" || $0 == " " || $0 == "-" }).joined()
        guard digits.allSatisfy(\.isASCII), [4, 6].contains(digits.count), let month = Int(digits.prefix(2)),
            let year = Int(digits.dropFirst(2))
        else { return nil }
        return (month, digits.count == 4 ? 2000 + year : year)
    }

    private static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
