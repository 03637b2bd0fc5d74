import PurseModels

/// The billing-details rules of the sheet settings in force (spec §4), checked on a payment
/// method as a client credential is about to save it. The secret key is never restricted.
enum SheetRules {
    /// Checks `method` and returns it with the default billing details attached when the settings
    /// say so. `billingParam` is where the billing details sit in the request
    /// (`payment_method_data[billing_details]`), `typeParam` where the type does.
    static func enforce(
        _ settings: CustomerSheetSettings, on method: PaymentMethod, billingParam: String, typeParam: String
    ) throws -> PaymentMethod {
        guard settings.paymentMethodTypes.contains(method.type) else {
            throw PurseError.invalidParameter(
                typeParam,
                "Payment methods of type \(method.type) cannot be added under the sheet settings in force "
                    + "(payment_method_types: \(settings.paymentMethodTypes.joined(separator: ", ")))."
            )
        }
        var result = method
        let collection = settings.billingDetailsCollection
        let defaults = settings.defaultBillingDetails
        if collection.attachDefaultsToPaymentMethod {
            result.billingDetails.name = result.billingDetails.name ?? defaults.name
            result.billingDetails.email = result.billingDetails.email ?? defaults.email
            result.billingDetails.phone = result.billingDetails.phone ?? defaults.phone
            if result.billingDetails.address == Address() { result.billingDetails.address = defaults.address }
        }
        let needs = typeNeeds(method.type)
        try check(
            result.billingDetails.name, default: defaults.name, mode: collection.name, needed: needs.contains("name"), param: "\(billingParam)[name]")
        try check(
            result.billingDetails.email, default: defaults.email, mode: collection.email, needed: needs.contains("email"),
            param: "\(billingParam)[email]")
        try check(result.billingDetails.phone, default: defaults.phone, mode: collection.phone, needed: false, param: "\(billingParam)[phone]")
        try checkAddress(result.billingDetails.address, default: defaults.address, mode: collection.address, param: "\(billingParam)[address]")
        return result
    }

    /// What `automatic` requires for each type: SEPA debits a name and an email, US bank accounts a name.
    static func typeNeeds(_ type: String) -> Set<String> {
        switch type {
        case "sepa_debit": ["name", "email"]
        case "us_bank_account": ["name"]
        default: []
        }
    }

    private static func check(_ value: String?, default fallback: String?, mode: String, needed: Bool, param: String) throws {
        switch mode {
        case "always":
            guard value != nil else { throw missing(param) }
        case "never":
            // Stock SDKs send the default for a field they do not collect; anything else was collected.
            guard value == nil || value == fallback else {
                throw PurseError.invalidParameter(param, "\(param) is not collected under the sheet settings in force; only its default is accepted.")
            }
        default:
            if needed, value == nil { throw missing(param) }
        }
    }

    private static func checkAddress(_ address: Address, default fallback: Address, mode: String, param: String) throws {
        switch mode {
        case "full":
            var required: [(String, String?)] = [
                ("line1", address.line1), ("city", address.city), ("postal_code", address.postalCode), ("country", address.country),
            ]
            if address.country == "US" { required.append(("state", address.state)) }
            if let missingPart = required.first(where: { $0.1 == nil }) { throw missing("\(param)[\(missingPart.0)]") }
        case "never":
            guard address == Address() || address == fallback else {
                throw PurseError.invalidParameter(param, "\(param) is not collected under the sheet settings in force; only its default is accepted.")
            }
        default:
            break
        }
    }

    private static func missing(_ param: String) -> PurseError {
        PurseError(
            .invalidRequest, code: "parameter_missing", message: "\(param) is required by the sheet settings in force.", param: param
        )
    }
}
