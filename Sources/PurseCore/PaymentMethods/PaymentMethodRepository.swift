public import PurseModels

/// A payment method as stored: the object, its state and the processor's reference.
public struct StoredPaymentMethod: Sendable, Equatable {
    public enum State: String, Sendable { case unattached, attached, detached }

    public var model: PaymentMethod
    public var state: State
    public var processorReference: String
    public var type: PaymentMethodType

    public init(model: PaymentMethod, state: State, processorReference: String, type: PaymentMethodType) {
        self.model = model
        self.state = state
        self.processorReference = processorReference
        self.type = type
    }
}

/// Which of a customer's attached payment methods a list shows.
public struct AttachedMethodsQuery: Sendable {
    public var customer: String
    /// Who lists: the customer must be live and in view.
    public var visibility: Visibility
    public var type: PaymentMethodType?
    public var allowRedisplay: String?
    /// The sheet settings' filter, for a client's list; nil for the secret key's.
    public var filter: CustomerSheetSettings.SavedPaymentMethodFilter?
    /// The time the filter judges expiry by.
    public var now: Int

    public init(
        customer: String, visibility: Visibility, type: PaymentMethodType? = nil, allowRedisplay: String? = nil,
        filter: CustomerSheetSettings.SavedPaymentMethodFilter? = nil, now: Int
    ) {
        self.customer = customer
        self.visibility = visibility
        self.type = type
        self.allowRedisplay = allowRedisplay
        self.filter = filter
        self.now = now
    }
}

/// What a customer sheet shows of a customer (``PaymentMethodRepository/sheet(_:)``).
public struct SheetMethodsQuery: Sendable {
    public var customer: String
    public var account: String
    /// Methods whose `allow_redisplay` is one of these are shown...
    public var allowRedisplay: [String]
    /// ...and the device's own default, whatever its `allow_redisplay`.
    public var alsoShowing: String?
    public var filter: CustomerSheetSettings.SavedPaymentMethodFilter
    public var now: Int

    public init(
        customer: String, account: String, allowRedisplay: [String], alsoShowing: String?,
        filter: CustomerSheetSettings.SavedPaymentMethodFilter, now: Int
    ) {
        self.customer = customer
        self.account = account
        self.allowRedisplay = allowRedisplay
        self.alsoShowing = alsoShowing
        self.filter = filter
        self.now = now
    }
}

/// A customer's methods as a sheet shows them, newest first, with the default.
public struct SheetMethods: Sendable, Equatable {
    public var methods: [PaymentMethod]
    public var defaultMethod: String?

    public init(methods: [PaymentMethod], defaultMethod: String?) {
        self.methods = methods
        self.defaultMethod = defaultMethod
    }
}

/// Payment methods and their attachment to customers. Numbers never reach it: a new method
/// holds only what ``PaymentMethodFactory`` kept. Writes that return nothing travel with the
/// unit of work's next round trip.
public protocol PaymentMethodRepository {
    /// Stores a new method: unattached, or attached to `customer` (whose row the caller locked).
    func insert(_ method: NewPaymentMethod, account: String, customer: String?) async throws

    /// A method in view: the account's, or for a customer's credential only that customer's
    /// attached ones; with `lock`, its row is locked for the rest of the transaction.
    func find(_ id: String, visibleTo visibility: Visibility, lock: Bool) async throws -> StoredPaymentMethod?

    /// A page of a live customer's attached methods, newest first, each written as its wire JSON
    /// (a list needs no model of them); nil when the customer is not live or not in view.
    func listAttached(_ query: AttachedMethodsQuery, pagination: Pagination) async throws -> Page<RenderedJSON>?

    /// What a sheet shows: at most 100 methods through the filter, and the default; nil when the
    /// customer is not live.
    func sheet(_ query: SheetMethodsQuery) async throws -> SheetMethods?

    /// Whether the filter lets a client see the method.
    func passes(_ id: String, account: String, filter: CustomerSheetSettings.SavedPaymentMethodFilter, now: Int) async throws -> Bool

    /// Writes what may change of a method: billing details, `allow_redisplay`, metadata and its
    /// type's details (a card's expiry).
    func update(_ method: PaymentMethod, account: String) async throws

    /// Attaches an unattached method to `customer` (whose row the caller locked) unless the
    /// customer has `limit` attached already; the method as attached, or nil when it was not
    /// unattached or the customer is full.
    func attach(_ id: String, to customer: String, account: String, limit: Int) async throws -> PaymentMethod?

    /// Whether `id` is attached to `customer`.
    func isAttached(_ id: String, to customer: String, account: String) async throws -> Bool

    /// How many methods are attached to `customer`.
    func attachedCount(customer: String, account: String) async throws -> Int

    /// Detaches a method attached to `customer` for good; the method as detached, or nil when it
    /// was not attached to it.
    func detach(_ id: String, from customer: String, account: String) async throws -> PaymentMethod?

    /// Detaches every method attached to `customer` (being deleted); the methods as detached.
    func detachAll(from customer: String, account: String) async throws -> [PaymentMethod]

    /// The newest card attached to `customer` with `fingerprint`, other than `excluded`, locked.
    func latestCard(
        fingerprint: String, customer: String, excluding excluded: String, account: String
    ) async throws
        -> PaymentMethod?
}
