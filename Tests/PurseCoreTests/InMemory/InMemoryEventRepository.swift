import PurseModels

@testable import PurseCore

/// A row of `events`.
struct EventRow: KeysetRow {
    var event: NewEvent
    let seq: Int

    var id: String { event.id }
    var created: Int { event.created }

    /// The event as a read builds it, with its deliveries still pending.
    func stored(in state: InMemoryState) -> StoredEvent {
        StoredEvent(event: event, pendingWebhooks: state.pendingWebhooks(of: event.id))
    }
}

/// ``EventRepository`` on ``InMemoryDatabase``, with the `webhook_deliveries` each event starts.
struct InMemoryEventRepository: EventRepository {
    let database: InMemoryDatabase

    func record(_ event: NewEvent) async throws {
        try await database.write { state in try Self.record(event, in: &state) }
    }

    /// The event's row and its deliveries, as the statement that records it writes them.
    static func record(_ event: NewEvent, in state: inout InMemoryState) throws {
        guard state.events[event.id] == nil else { throw InMemoryDatabaseError.constraint("events_pkey") }
        state.events[event.id] = EventRow(event: event, seq: state.nextSeq())
        state.startDeliveries(of: event)
    }

    func find(_ id: String, account: String) async throws -> StoredEvent? {
        await database.read { state in
            guard let row = state.events[id], row.event.account == account else { return nil }
            return row.stored(in: state)
        }
    }

    func list(_ query: EventQuery, pagination: Pagination) async throws -> Page<StoredEvent> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.events.values,
                where: { row in
                    row.event.account == query.account && (query.created?.contains(row.created) ?? true)
                        && (query.types?.matches(row.event.type) ?? true)
                },
                pagination: pagination, noun: "event", decode: { $0.stored(in: state) }
            )
        }
    }

    func events(ids: [String]) async throws -> [StoredEvent] {
        await database.read { state in ids.compactMap { state.events[$0]?.stored(in: state) } }
    }
}
