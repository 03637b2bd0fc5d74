import PurseModels

@testable import PurseCore

/// A row of `setup_intents`, with `updated_at` (the database clock's seconds) and
/// `clock_updated_at` (its customer's test clock's) that the sweep of abandoned intents judges by.
struct SetupIntentRow: KeysetRow {
    var stored: StoredSetupIntent
    var updatedAt: Int
    var clockUpdatedAt: Int?
    let seq: Int

    var id: String { stored.intent.id }
    var created: Int { stored.intent.created }

    /// The intent as a read builds it: only what has a column, and its customer's clock time.
    func read(in state: InMemoryState) -> StoredSetupIntent {
        let old = stored.intent
        var intent = SetupIntent(
            id: old.id, created: old.created, customer: old.customer, description: old.description, metadata: old.metadata,
            paymentMethod: old.paymentMethod, paymentMethodTypes: old.paymentMethodTypes, status: old.status, usage: old.usage
        )
        intent.cancellationReason = old.cancellationReason
        intent.customerSheetSettings = old.customerSheetSettings
        intent.lastSetupError = old.lastSetupError
        intent.mandate = stored.mandate?["id"]?.stringValue
        return StoredSetupIntent(
            intent: intent, accountID: stored.accountID, attempt: stored.attempt, returnURL: stored.returnURL,
            confirmedByClient: stored.confirmedByClient, confirmationSettingsID: stored.confirmationSettingsID,
            mandate: stored.mandate, options: stored.options, microdeposits: stored.microdeposits,
            clockTime: old.customer.flatMap(state.liveClockTime(ofCustomer:))
        )
    }
}

/// ``SetupIntentRepository`` on ``InMemoryDatabase``.
struct InMemorySetupIntentRepository: SetupIntentRepository {
    let database: InMemoryDatabase

    func insert(_ stored: StoredSetupIntent) async throws {
        try await database.write { state in
            let intent = stored.intent
            guard state.setupIntents[intent.id] == nil else { throw InMemoryDatabaseError.constraint("setup_intents_pkey") }
            try Self.checkReferences(intent, in: state)
            if let settings = intent.customerSheetSettings, state.sheetSettings[settings] == nil {
                throw InMemoryDatabaseError.constraint("setup_intents_sheet_settings_id_fkey")
            }
            // What the INSERT leaves out takes the columns' defaults.
            var inserted = StoredSetupIntent(
                intent: intent, accountID: stored.accountID, returnURL: stored.returnURL, options: stored.options
            )
            inserted.intent.cancellationReason = nil
            inserted.intent.lastSetupError = nil
            inserted.intent.mandate = nil
            state.setupIntents[intent.id] = SetupIntentRow(
                stored: inserted, updatedAt: state.now, clockUpdatedAt: intent.customer.flatMap(state.liveClockTime(ofCustomer:)),
                seq: state.nextSeq()
            )
        }
    }

    func find(_ id: String, account: String?, lock: Bool) async throws -> StoredSetupIntent? {
        await database.read { state in
            guard let row = state.setupIntents[id], account == nil || row.stored.accountID == account else { return nil }
            return row.read(in: state)
        }
    }

    func update(_ stored: StoredSetupIntent) async throws {
        try await database.write { state in
            let new = stored.intent
            guard var row = state.setupIntents[new.id], row.stored.accountID == stored.accountID else { return }
            try Self.checkReferences(new, in: state)
            row.stored.intent.customer = new.customer
            row.stored.intent.status = new.status
            row.stored.intent.paymentMethodTypes = new.paymentMethodTypes
            row.stored.intent.paymentMethod = new.paymentMethod
            row.stored.intent.description = new.description
            row.stored.intent.metadata = new.metadata
            row.stored.returnURL = stored.returnURL
            row.stored.intent.cancellationReason = new.cancellationReason
            row.stored.intent.lastSetupError = new.lastSetupError
            row.stored.mandate = stored.mandate
            row.stored.attempt = stored.attempt
            row.stored.confirmedByClient = stored.confirmedByClient
            row.stored.confirmationSettingsID = stored.confirmationSettingsID
            row.stored.options = stored.options
            row.stored.microdeposits = stored.microdeposits
            row.updatedAt = state.now
            row.clockUpdatedAt = new.customer.flatMap(state.liveClockTime(ofCustomer:))
            state.setupIntents[new.id] = row
        }
    }

    func list(_ query: SetupIntentQuery, pagination: Pagination) async throws -> Page<StoredSetupIntent> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.setupIntents.values,
                where: { row in
                    let intent = row.stored.intent
                    return row.stored.accountID == query.account && (query.customer == nil || intent.customer == query.customer)
                        && (query.paymentMethod == nil || intent.paymentMethod == query.paymentMethod)
                        && (query.created?.contains(row.created) ?? true)
                },
                pagination: pagination, noun: "setup intent", decode: { $0.read(in: state) }
            )
        }
    }

    func cancelAbandoned(idleSeconds: Int, on timeline: SetupIntentTimeline) async throws -> [StoredSetupIntent] {
        try await database.write { state in
            let now = state.now
            var canceled: [StoredSetupIntent] = []
            for (id, var row) in state.setupIntents
            where [.requiresPaymentMethod, .requiresAction].contains(row.stored.intent.status) && row.stored.microdeposits == nil {
                switch Self.time(of: row, on: timeline, in: state) {
                case .wall where row.updatedAt < now - idleSeconds: break
                case .clock(let time) where (row.clockUpdatedAt ?? .max) < time - idleSeconds: break
                default: continue
                }
                row.stored.intent.status = .canceled
                row.stored.intent.cancellationReason = "abandoned"
                row.updatedAt = now
                state.setupIntents[id] = row
                canceled.append(row.read(in: state))
            }
            return canceled
        }
    }

    func lockMicrodepositsSent(daysAgo days: Int, on timeline: SetupIntentTimeline) async throws -> [StoredSetupIntent] {
        await database.read { state in
            state.setupIntents.values.filter { row in
                guard row.stored.intent.status == .requiresAction, let pending = row.stored.microdeposits else { return false }
                switch Self.time(of: row, on: timeline, in: state) {
                case .wall: return pending.sentAt < state.now - days * 86_400
                case .clock(let time): return pending.sentAt < time - days * 86_400
                case nil: return false
                }
            }.map { $0.read(in: state) }
        }
    }

    func joinClock(customer: String, account: String, time: Int, resent: PendingMicrodeposits) async throws {
        try await database.write { state in
            for (id, var row) in state.setupIntents
            where row.stored.accountID == account && row.stored.intent.customer == customer
                && [.requiresPaymentMethod, .requiresAction].contains(row.stored.intent.status)
            {
                row.clockUpdatedAt = time
                if var pending = row.stored.microdeposits {
                    (pending.sentAt, pending.arrivalDate) = (resent.sentAt, resent.arrivalDate)
                    row.stored.microdeposits = pending
                }
                state.setupIntents[id] = row
            }
        }
    }

    func stampClockTime(clock: String, account: String, time: Int) async throws {
        try await database.write { state in
            for (id, var row) in state.setupIntents
            where row.clockUpdatedAt == nil && Self.isOn(clock, account: account, row, in: state)
                && [.requiresPaymentMethod, .requiresAction].contains(row.stored.intent.status)
            {
                row.clockUpdatedAt = time
                state.setupIntents[id] = row
            }
        }
    }

    /// The time a sweep on `timeline` judges `row` by; nil when the row is not on it.
    private enum SweepTime {
        case wall
        case clock(Int)
    }
    private static func time(of row: SetupIntentRow, on timeline: SetupIntentTimeline, in state: InMemoryState) -> SweepTime? {
        switch timeline {
        case .wallClock:
            return row.stored.intent.customer.flatMap(state.liveClockTime(ofCustomer:)) == nil ? .wall : nil
        case .testClock(let clock, let account, let time):
            return isOn(clock, account: account, row, in: state) ? .clock(time) : nil
        }
    }

    /// Whether the row's customer is on `clock` (the clock sweeps' `customer_id IN`).
    private static func isOn(_ clock: String, account: String, _ row: SetupIntentRow, in state: InMemoryState) -> Bool {
        guard row.stored.accountID == account, let customer = row.stored.intent.customer else { return false }
        return state.customers[customer]?.customer.testClock == clock
    }

    /// The foreign keys of `customer_id` and `payment_method_id`.
    private static func checkReferences(_ intent: SetupIntent, in state: InMemoryState) throws {
        if let customer = intent.customer, state.customers[customer] == nil {
            throw InMemoryDatabaseError.constraint("setup_intents_customer_id_fkey")
        }
        if let method = intent.paymentMethod, state.paymentMethods[method] == nil {
            throw InMemoryDatabaseError.constraint("setup_intents_payment_method_id_fkey")
        }
    }
}
