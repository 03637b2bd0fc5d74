public import PurseModels

/// The billing-details part of a sheet's "add" form for one payment method type, under the
/// sheet settings in force (spec §4): which fields to ask for, and what to send.
///
/// `always` fields are asked for; `never` fields are not (their defaults are sent only when
/// `attach_defaults_to_payment_method` is on); `automatic` fields are asked for only where the
/// type needs them (a SEPA debit needs a name and an email, a US bank account a name); an
/// `address` of `full` asks for line 1, city, postal code and country (and state in the US).
public struct BillingDetailsForm: Sendable, Hashable {
    /// A billing-details field a sheet may ask for.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// The name on the card or account.
        case name
        /// An email address.
        case email
        /// A phone number.
        case phone
        /// A full postal address: line 1, city, postal code, country, and state in the US.
        case address
    }

    /// The fields to ask for, in the order a form shows them.
    public let fields: [Field]
    /// The values to prefill (the settings' `default_billing_details`).
    public let defaults: BillingDetails
    /// Whether the defaults are sent even for fields the form does not show.
    public let attachesDefaults: Bool

    /// The form for adding a `paymentMethodType` (`card`, `us_bank_account`, `sepa_debit`)
    /// under `settings`.
    public init(settings: CustomerSheetSettings, paymentMethodType: String) {
        let collection = settings.billingDetailsCollection
        let needed: Set<Field> =
            switch paymentMethodType {
            case "sepa_debit": [.name, .email]
            case "us_bank_account": [.name]
            default: []
            }
        func asks(_ field: Field, _ mode: String) -> Bool {
            switch mode {
            case "always", "full": true
            case "never": false
            default: needed.contains(field)
            }
        }
        fields = [
            (Field.name, collection.name), (.email, collection.email), (.phone, collection.phone), (.address, collection.address),
        ].filter { asks($0.0, $0.1) }.map(\.0)
        defaults = settings.defaultBillingDetails
        attachesDefaults = collection.attachDefaultsToPaymentMethod
    }

    /// What to send as `billing_details`: the entered values of the fields the form shows
    /// (their defaults where left empty and the settings attach defaults), plus the defaults of
    /// the fields it does not show when the settings attach defaults. Values entered for fields
    /// the settings do not collect are dropped, as a sheet would never have shown them.
    public func billingDetails(entered: BillingDetails) -> BillingDetails {
        func value(_ field: Field, _ entered: String?, _ fallback: String?) -> String? {
            if fields.contains(field), let entered, !entered.isEmpty { return entered }
            return attachesDefaults ? fallback : nil
        }
        var result = BillingDetails(
            email: value(.email, entered.email, defaults.email),
            name: value(.name, entered.name, defaults.name),
            phone: value(.phone, entered.phone, defaults.phone)
        )
        if fields.contains(.address), entered.address != Address() {
            result.address = entered.address
        } else if attachesDefaults {
            result.address = defaults.address
        }
        return result
    }
}
