/// Purse's test bank: the accounts its page offers, each standing for one of Stripe's ACH test
/// account numbers at routing number 110000000, so that linking one decides what saving it does
/// (the test processor's table). Typed numbers are checked and linked the same way.
public enum TestBankAccount: String, Sendable, CaseIterable {
    case checking
    case savings
    case closed
    case noAccount = "no_account"

    /// The ACH test account number it stands for.
    var accountNumber: String {
        switch self {
        case .checking: "000123456789"
        case .savings: "000222222227"
        case .closed: "000111111113"
        case .noAccount: "000111111116"
        }
    }

    /// `checking` or `savings`, the Financial Connections subcategory.
    var subcategory: String { self == .savings ? "savings" : "checking" }

    /// What the page shows for it.
    public var label: String {
        switch self {
        case .checking: "Checking ••••6789"
        case .savings: "Savings ••••2227"
        case .closed: "Closed checking ••••1113"
        case .noAccount: "Unknown checking ••••1116"
        }
    }

    /// What saving it does, in the page's words.
    public var outcome: String {
        switch self {
        case .checking, .savings: "links and saves"
        case .closed: "links; saving it fails: the account is closed"
        case .noAccount: "links; saving it fails: no such account"
        }
    }
}

/// What the customer chose on the test-bank page.
public enum TestBankSelection: Sendable {
    case test(TestBankAccount)
    /// Typed in: routing and account numbers, `checking` or `savings`.
    case entered(routingNumber: String, accountNumber: String, subcategory: String)
}

/// A visit to the test-bank page: the session, and the URLs back to the app.
public struct TestBankVisit: Sendable {
    public let session: StoredFinancialConnectionsSession
    /// Whether this visit linked or cancelled the session (else it had been decided before).
    public var decidedNow = false

    /// The test accounts the page offers: those of the subcategories the session allows.
    public var offered: [TestBankAccount] { TestBankAccount.allCases.filter { session.link.allows(subcategory: $0.subcategory) } }

    /// The account types a customer may type numbers for.
    public var subcategories: [String] { ["checking", "savings"].filter { session.link.allows(subcategory: $0) } }

    public var successURL: String { FinancialConnectionsService.returnURLs(appID: session.appID).success }
    public var cancelURL: String { FinancialConnectionsService.returnURLs(appID: session.appID).cancel }
}
