public import PurseModels

/// What a customer's sheet selected (spec §4): its default payment method, or a wallet.
public enum SelectedOption: String, Sendable, Hashable {
    case paymentMethod = "payment_method"
    case applePay = "apple_pay"
    case link
}

/// A live customer as stored: the object and the option its sheet selected.
public struct StoredCustomer: Sendable, Equatable {
    public var customer: Customer
    public var selectedOption: SelectedOption?

    public init(customer: Customer, selectedOption: SelectedOption?) {
        self.customer = customer
        self.selectedOption = selectedOption
    }
}

/// A customer as found: live, or the tombstone a deleted one leaves.
public enum CustomerLookup: Sendable, Equatable {
    case live(Customer)
    case deleted(id: String)
}

/// What a customer selected, with the payment method when a method is selected.
public struct CustomerSelection: Sendable, Equatable {
    public var option: SelectedOption?
    public var paymentMethod: PaymentMethod?
    /// The time of the customer's test clock, when it is on one.
    public var clockTime: Int?

    public init(option: SelectedOption?, paymentMethod: PaymentMethod?, clockTime: Int? = nil) {
        self.option = option
        self.paymentMethod = paymentMethod
        self.clockTime = clockTime
    }
}

/// A live customer's test clock, as far as time goes.
public struct CustomerClock: Sendable, Equatable {
    /// The clock's time; nil for a customer on no clock, which lives by the wall clock.
    public var time: Int?

    public init(time: Int?) {
        self.time = time
    }
}

/// Which customers `GET /v1/customers` lists.
public struct CustomerQuery: Sendable {
    public var account: String
    public var email: String?
    public var created: RangeFilter?
    /// The customers on this test clock; nil for the customers on none, as Stripe lists them.
    public var testClock: String?

    public init(account: String, email: String? = nil, created: RangeFilter? = nil, testClock: String? = nil) {
        self.account = account
        self.email = email
        self.created = created
        self.testClock = testClock
    }
}

/// The customers of every account. Writes that return nothing travel with the unit of work's
/// next round trip.
public protocol CustomerRepository {
    /// Stores a new customer, without a default payment method (set it with ``update(_:account:)``
    /// once the method is attached), and records `created`, its `customer.created` event, in the
    /// same write: creating a customer is then one statement, as it was before the repositories.
    func insert(_ customer: Customer, account: String, announcing created: NewEvent) async throws

    /// A customer in view, live or deleted.
    func find(_ id: String, visibleTo visibility: Visibility) async throws -> CustomerLookup?

    /// A live customer in view, its row locked for the rest of the transaction: every change to a
    /// customer or to its payment methods takes this lock first, so they never race.
    func lockLive(_ id: String, visibleTo visibility: Visibility) async throws -> StoredCustomer?

    /// Whether a live customer is in view.
    func isLive(_ id: String, visibleTo visibility: Visibility) async throws -> Bool

    /// The test clock of a live customer in view; nil when no such customer is in view.
    func clock(ofLive id: String, visibleTo visibility: Visibility) async throws -> CustomerClock?

    /// What a live customer in view selected; nil when there is no such customer.
    func selection(of id: String, visibleTo visibility: Visibility) async throws -> CustomerSelection?

    /// Writes what may change of a live customer: its fields, default payment method and selection.
    func update(_ customer: StoredCustomer, account: String) async throws

    /// Deletes a customer, leaving a tombstone: the id stays, the personal data goes.
    func tombstone(_ id: String, account: String) async throws

    /// Live customers, newest first.
    func list(_ query: CustomerQuery, pagination: Pagination) async throws -> Page<Customer>

    /// Live customers of an account matching a search, newest first, from `position` on.
    func search(
        _ query: SearchQuery, account: String, after position: SearchPosition?, limit: Int
    ) async throws
        -> SearchResultPage<Customer>

    /// How many live customers of an account match a search, counted up to `limit`.
    func count(_ query: SearchQuery, account: String, upTo limit: Int) async throws -> Int
}
