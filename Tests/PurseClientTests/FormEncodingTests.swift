import Foundation
import Testing

@testable import PurseClient

/// Request bodies as stripe-ios's URLEncoder writes them, and the billing details a sheet sends
/// under each collection rule. No server needed.
@Suite("Form encoding and billing details")
struct FormEncodingTests {
    @Test func hashesNestWithBracketsAndListsAreIndexed() {
        let form: FormValue = [
            "client_secret": "seti_1_secret_2",
            "payment_method_data": ["type": "card", "card": ["number": "4242424242424242", "exp_month": "12"]],
            "expand": ["payment_method", "payment_method.customer"],
            "items": .list([["price": "a"], ["price": "b"]]),
            "empty": .fields([]),
        ]
        #expect(
            form.encoded
                == "client_secret=seti_1_secret_2&payment_method_data[type]=card&payment_method_data[card][number]=4242424242424242"
                + "&payment_method_data[card][exp_month]=12&expand[0]=payment_method&expand[1]=payment_method.customer"
                + "&items[0][price]=a&items[1][price]=b"
        )
    }

    @Test func namesAndValuesArePercentEncodedButBracketsOfNestingAreNot() {
        let form: FormValue = ["metadata": ["a b[c]": "x&y=z+1 é/?"], "email": "jane+1@example.com"]
        #expect(form.encoded == "metadata[a%20b%5Bc%5D]=x%26y%3Dz%2B1%20%C3%A9/?&email=jane%2B1%40example.com")
    }

    @Test func updateParamsSendOnlyWhatIsSet() {
        let params = PaymentMethodUpdateParams(
            billingDetails: BillingDetails(address: Address(country: "US"), name: "Jane"),
            card: .init(expYear: 2031), metadata: ["b": "2", "a": ""]
        )
        #expect(
            params.form.encoded == "billing_details[name]=Jane&billing_details[address][country]=US&card[exp_year]=2031&metadata[a]=&metadata[b]=2")
        #expect(PaymentMethodUpdateParams().form.encoded == "")
    }

    static func settings(
        name: String = "automatic", email: String = "automatic", phone: String = "automatic", address: String = "automatic",
        attachDefaults: Bool = false
    ) -> CustomerSheetSettings {
        CustomerSheetSettings(
            id: "css_test", name: nil, isDefault: true, created: 0, paymentMethodTypes: ["card", "us_bank_account", "sepa_debit"],
            billingDetailsCollection: .init(name: name, email: email, phone: phone, address: address, attachDefaultsToPaymentMethod: attachDefaults),
            defaultBillingDetails: BillingDetails(
                address: Address(city: "Berlin", country: "DE"), email: "default@example.com", name: "Default Name"),
            savedPaymentMethodFilter: .init(card: .init(funding: [], brands: []), hideExpired: false, allowRedisplay: [], countries: []),
            duplicateCards: "allow"
        )
    }

    @Test(arguments: [
        ("card", [BillingDetailsForm.Field]()),
        ("us_bank_account", [.name]),
        ("sepa_debit", [.name, .email]),
    ])
    func automaticAsksOnlyForWhatTheTypeNeeds(type: String, fields: [BillingDetailsForm.Field]) {
        #expect(BillingDetailsForm(settings: Self.settings(), paymentMethodType: type).fields == fields)
    }

    @Test func alwaysAndFullAskNeverDoesNot() {
        let form = BillingDetailsForm(settings: Self.settings(name: "never", email: "always", address: "full"), paymentMethodType: "sepa_debit")
        #expect(form.fields == [.email, .address])
    }

    @Test func defaultsAreSentOnlyWhenTheSettingsAttachThem() {
        let entered = BillingDetails(address: Address(line1: "1 Main St"), email: "typed@example.com", name: "Jane", phone: "+1 555")
        let keep = BillingDetailsForm(settings: Self.settings(email: "never", phone: "always"), paymentMethodType: "card")
        #expect(keep.billingDetails(entered: entered) == BillingDetails(phone: "+1 555"))

        let attach = BillingDetailsForm(settings: Self.settings(email: "never", phone: "always", attachDefaults: true), paymentMethodType: "card")
        #expect(
            attach.billingDetails(entered: entered)
                == BillingDetails(
                    address: Address(city: "Berlin", country: "DE"), email: "default@example.com", name: "Default Name", phone: "+1 555")
        )
        #expect(attach.billingDetails(entered: BillingDetails()).phone == nil, "a collected field left empty has no default to fall back on")
    }
}
