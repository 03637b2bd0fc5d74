public import PurseModels

/// A setup intent as stored, with what rendering needs beyond the object.
public struct StoredSetupIntent: Sendable, Equatable {
    public var intent: SetupIntent
    public var accountID: String
    /// Confirmations that asked for authentication so far: each gets a page token of its own.
    public var attempt: Int
    public var returnURL: String?
    /// Whether the pending confirmation came from a client credential.
    public var confirmedByClient: Bool
    /// The sheet settings a client's pending confirmation runs under; nil with
    /// ``confirmedByClient`` when they were deleted since, and the account's default applies.
    public var confirmationSettingsID: String?
    /// The mandate a bank debit's confirmation recorded (``SetupIntent/mandate`` is its id).
    public var mandate: JSONValue?
    /// `payment_method_options`, rendered for the types the intent allows.
    public var options: SetupIntentOptions
    /// Set while the intent waits for the customer to verify microdeposits.
    public var microdeposits: PendingMicrodeposits?
    /// The time of the customer's test clock when the intent was read; nil for an intent on the
    /// wall clock. Read only: the database stamps each write with the clock's time of the moment.
    public var clockTime: Int?

    public init(
        intent: SetupIntent, accountID: String, attempt: Int = 0, returnURL: String? = nil, confirmedByClient: Bool = false,
        confirmationSettingsID: String? = nil, mandate: JSONValue? = nil, options: SetupIntentOptions = SetupIntentOptions(),
        microdeposits: PendingMicrodeposits? = nil, clockTime: Int? = nil
    ) {
        self.intent = intent
        self.accountID = accountID
        self.attempt = attempt
        self.returnURL = returnURL
        self.confirmedByClient = confirmedByClient
        self.confirmationSettingsID = confirmationSettingsID
        self.mandate = mandate
        self.options = options
        self.microdeposits = microdeposits
        self.clockTime = clockTime
    }

    /// "Now" for the intent: its customer's test clock's time, or the wall clock's.
    public var now: Int { clockTime ?? Clock.now }
}

/// Whose time a sweep of setup intents goes by.
public enum SetupIntentTimeline: Sendable, Equatable {
    /// Every account's intents but those of customers on a live test clock, at the database's time.
    case wallClock
    /// The intents of one test clock's customers, at the clock's time.
    case testClock(id: String, account: String, time: Int)
}

/// Which setup intents `GET /v1/setup_intents` lists.
public struct SetupIntentQuery: Sendable {
    public var account: String
    public var customer: String?
    public var paymentMethod: String?
    public var created: RangeFilter?

    public init(account: String, customer: String? = nil, paymentMethod: String? = nil, created: RangeFilter? = nil) {
        self.account = account
        self.customer = customer
        self.paymentMethod = paymentMethod
        self.created = created
    }
}

/// Setup intents. Writes travel with the unit of work's next round trip.
public protocol SetupIntentRepository {
    func insert(_ intent: StoredSetupIntent) async throws

    /// An intent of `account` (of any account when nil: the authentication page knows only the
    /// id); with `lock`, its row is locked for the rest of the transaction.
    func find(_ id: String, account: String?, lock: Bool) async throws -> StoredSetupIntent?

    /// Writes what may change of an intent: everything but its id, account and creation.
    func update(_ intent: StoredSetupIntent) async throws

    /// Intents, newest first.
    func list(_ query: SetupIntentQuery, pagination: Pagination) async throws -> Page<StoredSetupIntent>

    /// Cancels (`cancellation_reason: abandoned`) the intents of `timeline` left waiting for a
    /// payment method or an authentication, unchanged for `idleSeconds` of its time; returns them
    /// as canceled. Intents waiting for microdeposits are not abandoned: see
    /// ``lockMicrodepositsSent(daysAgo:on:)``.
    func cancelAbandoned(idleSeconds: Int, on timeline: SetupIntentTimeline) async throws -> [StoredSetupIntent]

    /// The intents of `timeline` still waiting for microdeposits sent more than `days` ago by its
    /// time, locked. On the wall clock those another transaction holds are skipped, for the next
    /// sweep; a test clock's advance waits for them, as nothing else would end them.
    func lockMicrodepositsSent(daysAgo days: Int, on timeline: SetupIntentTimeline) async throws -> [StoredSetupIntent]

    /// Locks the waiting intents of a customer joining a test clock and starts their waits over at
    /// the clock's `time`: their last change, and microdeposits' `sent_at` and `arrival_date`
    /// (those of `resent`; the failed attempts are kept).
    func joinClock(customer: String, account: String, time: Int, resent: PendingMicrodeposits) async throws

    /// Gives the waiting intents of `clock`'s customers that have no clock time (written as their
    /// customer was joining the clock) its `time`, from which they age.
    func stampClockTime(clock: String, account: String, time: Int) async throws
}
