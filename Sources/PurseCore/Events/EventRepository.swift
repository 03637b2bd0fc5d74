/// An event as stored, with the count of its webhook deliveries still pending.
public struct StoredEvent: Sendable, Equatable {
    public let event: NewEvent
    public let pendingWebhooks: Int

    public init(event: NewEvent, pendingWebhooks: Int) {
        self.event = event
        self.pendingWebhooks = pendingWebhooks
    }
}

/// Which event types a list shows.
public enum EventTypeFilter: Sendable, Equatable {
    case exactly(String)
    /// Every type starting with this (`customer.` for `customer.*`).
    case prefix(String)
    case anyOf([String])

    public func matches(_ type: String) -> Bool {
        switch self {
        case .exactly(let wanted): type == wanted
        case .prefix(let prefix): type.hasPrefix(prefix)
        case .anyOf(let types): types.contains(type)
        }
    }
}

/// Which events `GET /v1/events` lists.
public struct EventQuery: Sendable {
    public var account: String
    public var created: RangeFilter?
    public var types: EventTypeFilter?

    public init(account: String, created: RangeFilter? = nil, types: EventTypeFilter? = nil) {
        self.account = account
        self.created = created
        self.types = types
    }
}

/// The event log, an outbox: an event exists exactly when the change it reports does, with one
/// webhook delivery for each enabled endpoint of its account that wants its type.
public protocol EventRepository {
    /// Records an event in the unit of work of its change. Nothing reads it back, so it travels
    /// with the unit of work's next round trip (often the COMMIT); an error it meets is thrown there.
    func record(_ event: NewEvent) async throws

    func find(_ id: String, account: String) async throws -> StoredEvent?

    /// Events, newest first.
    func list(_ query: EventQuery, pagination: Pagination) async throws -> Page<StoredEvent>

    /// The events with these ids (of any account: a webhook delivery names its event) that exist
    /// and can be read, in no particular order; one read however many.
    func events(ids: [String]) async throws -> [StoredEvent]
}
