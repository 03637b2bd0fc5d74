public import PurseModels

/// What `updatePaymentMethod` changes on a saved payment method (`POST /v1/payment_methods/{id}`).
/// Only what is set is sent, so only that changes; billing details merge field by field.
public struct PaymentMethodUpdateParams: Sendable, Hashable {
    /// Billing details to change; nil fields (and an all-nil address) are left as they are.
    public var billingDetails: BillingDetails?
    /// A card's new expiry or preferred network.
    public var card: Card?
    /// A US bank account's holder or account type.
    public var usBankAccount: USBankAccount?
    /// `always`, `limited` or `unspecified`.
    public var allowRedisplay: String?
    /// Metadata keys to set; an empty value removes the key.
    public var metadata: [String: String]?

    /// Creates the changes to send.
    public init(
        billingDetails: BillingDetails? = nil, card: Card? = nil, usBankAccount: USBankAccount? = nil,
        allowRedisplay: String? = nil, metadata: [String: String]? = nil
    ) {
        self.billingDetails = billingDetails
        self.card = card
        self.usBankAccount = usBankAccount
        self.allowRedisplay = allowRedisplay
        self.metadata = metadata
    }

    /// `card[exp_month]`, `card[exp_year]`, `card[networks][preferred]`.
    public struct Card: Sendable, Hashable {
        /// 1 to 12.
        public var expMonth: Int?
        /// Four digits (two are read as 20xx).
        public var expYear: Int?
        /// One of the card's `networks.available`.
        public var preferredNetwork: String?

        /// Creates the card changes.
        public init(expMonth: Int? = nil, expYear: Int? = nil, preferredNetwork: String? = nil) {
            self.expMonth = expMonth
            self.expYear = expYear
            self.preferredNetwork = preferredNetwork
        }
    }

    /// `us_bank_account[account_holder_type]`, `us_bank_account[account_type]`.
    public struct USBankAccount: Sendable, Hashable {
        /// `individual` or `company`.
        public var accountHolderType: String?
        /// `checking` or `savings`.
        public var accountType: String?

        /// Creates the bank account changes.
        public init(accountHolderType: String? = nil, accountType: String? = nil) {
            self.accountHolderType = accountHolderType
            self.accountType = accountType
        }
    }

    /// The form stripe-ios would send for the same changes.
    var form: FormValue {
        var form = FormValue.fields([])
        if let billingDetails { form.set("billing_details", billingDetails.form.nonEmpty) }
        if let card {
            var fields = FormValue.fields([])
            fields.set("exp_month", card.expMonth.map { .string(String($0)) })
            fields.set("exp_year", card.expYear.map { .string(String($0)) })
            fields.set("networks", card.preferredNetwork.map { ["preferred": .string($0)] })
            form.set("card", fields.nonEmpty)
        }
        if let usBankAccount {
            var fields = FormValue.fields([])
            fields.set("account_holder_type", usBankAccount.accountHolderType.map(FormValue.string))
            fields.set("account_type", usBankAccount.accountType.map(FormValue.string))
            form.set("us_bank_account", fields.nonEmpty)
        }
        form.set("allow_redisplay", allowRedisplay.map(FormValue.string))
        if let metadata {
            form.set("metadata", .fields(metadata.keys.sorted().map { .init(key: $0, value: .string(metadata[$0]!)) }).nonEmpty)
        }
        return form
    }
}
