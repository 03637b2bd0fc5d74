import PurseModels

/// What `POST /v1/payment_methods/{id}` changes: only the fields sent. A new card expiry must not
/// be past at `now`.
enum PaymentMethodUpdate {
    static func apply(_ params: PaymentMethodUpdateParameters, to old: PaymentMethod, now: Int) throws -> PaymentMethod {
        var new = old
        if let redisplay = params.allowRedisplay { new.allowRedisplay = redisplay.rawValue }
        if let billing = params.billingDetails {
            if let address = billing.address {
                new.billingDetails.address = try address.value?.address(param: "billing_details[address]") ?? Address()
            }
            if let email = billing.email {
                new.billingDetails.email = try BillingFieldRules.email(email.value, param: "billing_details[email]")
            }
            if let name = billing.name {
                new.billingDetails.name = try BillingFieldRules.name(name.value, param: "billing_details[name]")
            }
            if let phone = billing.phone {
                new.billingDetails.phone = try BillingFieldRules.phone(phone.value, param: "billing_details[phone]")
            }
        }
        new.metadata = try MetadataRules.updated(old.metadata, with: params.metadata)
        if let card = params.card {
            guard var details = new.card else { throw PurseError.invalidParameter("card", "This payment method is not a card.") }
            if card.expMonth != nil || card.expYear != nil {
                var year = card.expYear ?? details.expYear
                let (month, fullYear) = try PaymentMethodFactory.checkedExpiry(
                    month: card.expMonth ?? details.expMonth, year: &year, now: now, name: { $0 }
                )
                details.expMonth = month
                details.expYear = fullYear
            }
            if let preferred = card.networks?.preferred {
                // As Stripe: a network the card does not run on is kept as `invalid_preference`.
                details.networks = CardNetworks.networks(available: details.networks.available, preferred: preferred)
                if let brand = CardBrand(rawValue: details.brand) {
                    details.displayBrand = CardNetworks.displayBrand(brand: brand, networks: details.networks)
                }
            }
            new.card = details
        }
        if let bank = params.usBankAccount {
            guard var details = new.usBankAccount else {
                throw PurseError.invalidParameter("us_bank_account", "This payment method is not a US bank account.")
            }
            if let holder = bank.accountHolderType { details.accountHolderType = holder.rawValue }
            if let type = bank.accountType { details.accountType = type.rawValue }
            new.usBankAccount = details
        }
        return new
    }
}
