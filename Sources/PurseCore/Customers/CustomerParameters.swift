public import PurseModels

/// `address[...]` as a request sends it.
public struct AddressParameters: Decodable, Sendable, Equatable {
    public var city: String?
    public var country: String?
    public var line1: String?
    public var line2: String?
    public var postalCode: String?
    public var state: String?

    enum CodingKeys: String, CodingKey {
        case city, country, line1, line2
        case postalCode = "postal_code"
        case state
    }

    /// The stored address, every part within Stripe's length limits.
    public func address(param: String) throws -> Address {
        Address(
            city: try TextRules.limited(city, to: 200, param: "\(param)[city]"),
            country: try TextRules.limited(country, to: 100, param: "\(param)[country]"),
            line1: try TextRules.limited(line1, to: 500, param: "\(param)[line1]"),
            line2: try TextRules.limited(line2, to: 500, param: "\(param)[line2]"),
            postalCode: try TextRules.limited(postalCode, to: 50, param: "\(param)[postal_code]"),
            state: try TextRules.limited(state, to: 200, param: "\(param)[state]")
        )
    }
}

/// `shipping[...]`: name and address are required.
public struct ShippingParameters: Decodable, Sendable, Equatable {
    public var address: AddressParameters
    public var name: String
    public var phone: String?

    public func shipping() throws -> Shipping {
        Shipping(
            address: try address.address(param: "shipping[address]"),
            name: try TextRules.singleLine(name, to: 256, param: "shipping[name]")!,
            phone: try TextRules.singleLine(phone, to: 50, param: "shipping[phone]")
        )
    }
}

/// `invoice_settings[...]`.
public struct InvoiceSettingsParameters: Decodable, Sendable, Equatable {
    /// A payment method attached to the customer; empty unsets the default.
    public var defaultPaymentMethod: Patch<String>?

    enum CodingKeys: String, CodingKey {
        case defaultPaymentMethod = "default_payment_method"
    }
}

/// `POST /v1/customers`.
public struct CustomerCreateParameters: Decodable, Sendable {
    public var address: AddressParameters?
    public var description: String?
    public var email: String?
    public var invoiceSettings: InvoiceSettingsParameters?
    public var metadata: MetadataParameter?
    public var name: String?
    /// A payment method (or test token) to attach to the new customer.
    public var paymentMethod: String?
    public var phone: String?
    public var preferredLocales: [String]?
    public var shipping: ShippingParameters?
    /// The test clock the customer lives by, for good (there is no moving it to another).
    public var testClock: String?

    enum CodingKeys: String, CodingKey {
        case address, description, email
        case invoiceSettings = "invoice_settings"
        case metadata, name
        case paymentMethod = "payment_method"
        case phone
        case preferredLocales = "preferred_locales"
        case shipping
        case testClock = "test_clock"
    }
}

/// `POST /v1/customers/{id}`: only what is sent changes; an empty value unsets.
public struct CustomerUpdateParameters: Decodable, Sendable {
    public var address: Patch<AddressParameters>?
    public var description: Patch<String>?
    public var email: Patch<String>?
    public var invoiceSettings: InvoiceSettingsParameters?
    public var metadata: Patch<MetadataParameter>?
    public var name: Patch<String>?
    public var phone: Patch<String>?
    public var preferredLocales: Patch<[String]>?
    public var shipping: Patch<ShippingParameters>?

    enum CodingKeys: String, CodingKey {
        case address, description, email
        case invoiceSettings = "invoice_settings"
        case metadata, name, phone
        case preferredLocales = "preferred_locales"
        case shipping
    }
}

/// `GET /v1/customers`.
public struct CustomerListParameters: Decodable, Sendable, PaginatedParameters {
    /// Exact, case-sensitive, as Stripe's filter.
    public var email: String?
    public var created: RangeFilter?
    public var limit: Int?
    public var startingAfter: String?
    public var endingBefore: String?
    /// Only the customers on this test clock; without it, only those on none (as Stripe's list).
    public var testClock: String?

    enum CodingKeys: String, CodingKey {
        case email, created, limit
        case testClock = "test_clock"
        case startingAfter = "starting_after"
        case endingBefore = "ending_before"
    }
}

/// `GET /v1/customers/search`.
public struct CustomerSearchParameters: Decodable, Sendable {
    public var query: String
    public var limit: Int?
    public var page: String?

    /// Customers' fields in Stripe's search query language.
    public static let parser = SearchQueryParser(
        fields: ["created": .numeric, "email": .string, "metadata": .token, "name": .string, "phone": .string],
        resource: "customers"
    )
}

/// Checks shared by create and update.
enum CustomerFieldRules {
    static func email(_ value: String?) throws -> String? { try TextRules.email(value, param: "email") }
    static func name(_ value: String?) throws -> String? { try TextRules.singleLine(value, to: 256, param: "name") }
    static func phone(_ value: String?) throws -> String? { try TextRules.singleLine(value, to: 50, param: "phone") }
    static func description(_ value: String?) throws -> String? {
        try TextRules.singleLine(value, to: 5000, param: "description")
    }

    static func locales(_ value: [String]?) throws -> [String] {
        let locales = value ?? []
        guard locales.count <= 10 else {
            throw PurseError.invalidParameter("preferred_locales", "A customer can have up to 10 preferred locales.")
        }
        for (index, locale) in locales.enumerated() where locale.isEmpty || locale.count > 20 {
            throw PurseError.invalidParameter("preferred_locales[\(index)]", "Invalid locale: \(locale)")
        }
        return locales
    }
}
