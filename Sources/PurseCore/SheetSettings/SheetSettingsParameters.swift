import PurseModels

/// `POST /v1/customer_sheet_settings` and its update: every field optional; on update only what is
/// sent changes, nested fields merge, and an empty value clears a list (no filter on it).
public struct SheetSettingsParameters: Decodable, Sendable {
    public var name: Patch<String>?
    public var paymentMethodTypes: Patch<[PaymentMethodType]>?
    public var billingDetailsCollection: Patch<Collection>?
    public var defaultBillingDetails: Patch<Defaults>?
    public var savedPaymentMethodFilter: Patch<Filter>?
    public var duplicateCards: Patch<DuplicateCards>?

    enum CodingKeys: String, CodingKey {
        case name
        case paymentMethodTypes = "payment_method_types"
        case billingDetailsCollection = "billing_details_collection"
        case defaultBillingDetails = "default_billing_details"
        case savedPaymentMethodFilter = "saved_payment_method_filter"
        case duplicateCards = "duplicate_cards"
    }

    public enum FieldMode: String, Sendable, CaseIterable, ParameterEnum { case automatic, always, never }
    public enum AddressMode: String, Sendable, CaseIterable, ParameterEnum { case automatic, full, never }
    public enum DuplicateCards: String, Sendable, CaseIterable, ParameterEnum { case allow, reuse }
    public enum Funding: String, Sendable, CaseIterable, ParameterEnum { case credit, debit, prepaid, unknown }

    public struct Collection: Decodable, Sendable {
        public var name: Patch<FieldMode>?
        public var email: Patch<FieldMode>?
        public var phone: Patch<FieldMode>?
        public var address: Patch<AddressMode>?
        public var attachDefaultsToPaymentMethod: Patch<Bool>?

        enum CodingKeys: String, CodingKey {
            case name, email, phone, address
            case attachDefaultsToPaymentMethod = "attach_defaults_to_payment_method"
        }
    }

    public struct Defaults: Decodable, Sendable {
        public var name: Patch<String>?
        public var email: Patch<String>?
        public var phone: Patch<String>?
        public var address: AddressPatch?
    }

    public struct AddressPatch: Decodable, Sendable {
        public var city: Patch<String>?
        public var country: Patch<String>?
        public var line1: Patch<String>?
        public var line2: Patch<String>?
        public var postalCode: Patch<String>?
        public var state: Patch<String>?

        enum CodingKeys: String, CodingKey {
            case city, country, line1, line2
            case postalCode = "postal_code"
            case state
        }
    }

    public struct Filter: Decodable, Sendable {
        public var card: Patch<CardFilter>?
        public var hideExpired: Patch<Bool>?
        public var allowRedisplay: Patch<[AllowRedisplay]>?
        public var countries: Patch<[String]>?

        enum CodingKeys: String, CodingKey {
            case card
            case hideExpired = "hide_expired"
            case allowRedisplay = "allow_redisplay"
            case countries
        }
    }

    public struct CardFilter: Decodable, Sendable {
        public var funding: Patch<[Funding]>?
        public var brands: Patch<[CardBrandName]>?
    }

    /// Brands a filter may name.
    public enum CardBrandName: String, Sendable, CaseIterable, ParameterEnum {
        case visa, mastercard, amex, discover, diners, jcb, unionpay, unknown
    }

    /// `settings` with these parameters applied.
    func applied(to settings: CustomerSheetSettings) throws -> CustomerSheetSettings {
        var result = settings
        if let name { result.name = try TextRules.limited(name.value, to: 200, param: "name") }
        if let types = paymentMethodTypes {
            let values = types.value ?? []
            guard !values.isEmpty else {
                throw PurseError.invalidParameter("payment_method_types", "Give at least one payment method type a sheet may add.")
            }
            result.paymentMethodTypes = values.map(\.rawValue).distinct
        }
        // An empty value puts a field, a hash or a list back to where the default settings start.
        let initial = CustomerSheetSettings.initial(id: "", name: nil, isDefault: false, created: 0)
        switch billingDetailsCollection {
        case nil: break
        case .clear: result.billingDetailsCollection = initial.billingDetailsCollection
        case .set(let collection):
            let reset = initial.billingDetailsCollection
            if let name = collection.name { result.billingDetailsCollection.name = name.value?.rawValue ?? reset.name }
            if let email = collection.email { result.billingDetailsCollection.email = email.value?.rawValue ?? reset.email }
            if let phone = collection.phone { result.billingDetailsCollection.phone = phone.value?.rawValue ?? reset.phone }
            if let address = collection.address { result.billingDetailsCollection.address = address.value?.rawValue ?? reset.address }
            if let attach = collection.attachDefaultsToPaymentMethod {
                result.billingDetailsCollection.attachDefaultsToPaymentMethod = attach.value ?? reset.attachDefaultsToPaymentMethod
            }
        }
        switch defaultBillingDetails {
        case nil: break
        case .clear: result.defaultBillingDetails = initial.defaultBillingDetails
        case .set(let defaults):
            let param = "default_billing_details"
            if let name = defaults.name { result.defaultBillingDetails.name = try BillingFieldRules.name(name.value, param: "\(param)[name]") }
            if let email = defaults.email {
                result.defaultBillingDetails.email = try BillingFieldRules.email(email.value, param: "\(param)[email]")
            }
            if let phone = defaults.phone {
                result.defaultBillingDetails.phone = try BillingFieldRules.phone(phone.value, param: "\(param)[phone]")
            }
            if let address = defaults.address {
                var merged = result.defaultBillingDetails.address
                func set(_ patch: Patch<String>?, _ keyPath: WritableKeyPath<Address, String?>, _ field: String, _ limit: Int) throws {
                    guard let patch else { return }
                    merged[keyPath: keyPath] = try TextRules.limited(patch.value, to: limit, param: "\(param)[address][\(field)]")
                }
                try set(address.city, \.city, "city", 200)
                try set(address.country, \.country, "country", 100)
                try set(address.line1, \.line1, "line1", 500)
                try set(address.line2, \.line2, "line2", 500)
                try set(address.postalCode, \.postalCode, "postal_code", 50)
                try set(address.state, \.state, "state", 200)
                result.defaultBillingDetails.address = merged
            }
        }
        switch savedPaymentMethodFilter {
        case nil: break
        case .clear: result.savedPaymentMethodFilter = initial.savedPaymentMethodFilter
        case .set(let filter):
            switch filter.card {
            case nil: break
            case .clear: result.savedPaymentMethodFilter.card = initial.savedPaymentMethodFilter.card
            case .set(let card):
                if let funding = card.funding { result.savedPaymentMethodFilter.card.funding = (funding.value ?? []).map(\.rawValue) }
                if let brands = card.brands { result.savedPaymentMethodFilter.card.brands = (brands.value ?? []).map(\.rawValue) }
            }
            if let hide = filter.hideExpired { result.savedPaymentMethodFilter.hideExpired = hide.value ?? false }
            if let redisplay = filter.allowRedisplay { result.savedPaymentMethodFilter.allowRedisplay = (redisplay.value ?? []).map(\.rawValue) }
            if let countries = filter.countries {
                let values = countries.value ?? []
                for (index, country) in values.enumerated()
                where country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isUppercase }) {
                    throw PurseError.invalidParameter(
                        "saved_payment_method_filter[countries][\(index)]", "Countries are two-letter ISO codes in capitals, such as US."
                    )
                }
                result.savedPaymentMethodFilter.countries = values
            }
        }
        if let duplicateCards { result.duplicateCards = duplicateCards.value?.rawValue ?? initial.duplicateCards }
        return result
    }
}

extension CustomerSheetSettings {
    /// The values the default settings start with (spec §4).
    static func initial(id: String, name: String?, isDefault: Bool, created: Int) -> CustomerSheetSettings {
        CustomerSheetSettings(
            id: id, name: name, isDefault: isDefault, created: created,
            paymentMethodTypes: PaymentMethodType.allCases.map(\.rawValue),
            billingDetailsCollection: .init(
                name: "automatic", email: "automatic", phone: "automatic", address: "automatic", attachDefaultsToPaymentMethod: false),
            defaultBillingDetails: BillingDetails(),
            savedPaymentMethodFilter: .init(card: .init(funding: [], brands: []), hideExpired: false, allowRedisplay: [], countries: []),
            duplicateCards: "allow"
        )
    }
}
