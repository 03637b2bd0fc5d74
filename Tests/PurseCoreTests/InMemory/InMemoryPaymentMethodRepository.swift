import PurseModels

@testable import PurseCore

/// A row of `payment_methods`: the method as shown, its state, and the columns the sheet
/// settings' filter reads (copied at insert, as ``PostgresPaymentMethodRepository`` does).
struct PaymentMethodRow: KeysetRow {
    var model: PaymentMethod
    var account: String
    var state: StoredPaymentMethod.State
    var customerID: String?
    var processorReference: String
    var type: PaymentMethodType
    var fingerprint: String
    var cardBrand: String?
    var cardFunding: String?
    var cardExpMonth: Int?
    var cardExpYear: Int?
    var country: String?
    let seq: Int

    var id: String { model.id }
    var created: Int { model.created }

    /// The method as a read builds it: its customer is the `customer_id` column, its details
    /// those of its type.
    var stored: StoredPaymentMethod {
        var model = PaymentMethod(
            id: model.id, allowRedisplay: model.allowRedisplay, billingDetails: model.billingDetails, created: model.created,
            customer: customerID, metadata: model.metadata, type: type.rawValue
        )
        switch type {
        case .card: model.card = self.model.card
        case .usBankAccount: model.usBankAccount = self.model.usBankAccount
        case .sepaDebit: model.sepaDebit = self.model.sepaDebit
        }
        return StoredPaymentMethod(model: model, state: state, processorReference: processorReference, type: type)
    }

    /// The wire JSON of a list's row.
    var rendered: RenderedJSON {
        get throws { RenderedJSON(bytes: JSONWriter.bytes(try JSONValueEncoder().encode(stored.model))) }
    }

    /// Payment methods in view: the account's, or for a customer's credential only that
    /// customer's attached ones.
    func isVisible(to visibility: Visibility) -> Bool {
        guard account == visibility.account else { return false }
        guard let customer = visibility.customer else { return true }
        return customerID == customer && state == .attached
    }

    var isAttached: Bool { state == .attached }

    /// `details` as written: the first of the type hashes the model has, read back as its type's.
    mutating func writeDetails(of method: PaymentMethod) {
        model.card = nil
        model.usBankAccount = nil
        model.sepaDebit = nil
        if let card = method.card {
            if type == .card { model.card = card }
        } else if let bank = method.usBankAccount {
            if type == .usBankAccount { model.usBankAccount = bank }
        } else if let sepa = method.sepaDebit {
            if type == .sepaDebit { model.sepaDebit = sepa }
        }
    }
}

extension CustomerSheetSettings.SavedPaymentMethodFilter {
    /// PursePostgres's `condition(now:table:)` as a predicate, with SQL's three values: nil is NULL (a card
    /// without a country under a country filter), which a WHERE treats as false.
    func admits(_ row: PaymentMethodRow, now: Int) -> Bool? {
        var result: Bool? = true
        let isCard = row.type == .card
        if !card.funding.isEmpty {
            result = sqlAnd(result, sqlOr(!isCard, sqlIn(row.cardFunding, card.funding)))
        }
        if !card.brands.isEmpty {
            result = sqlAnd(result, sqlOr(!isCard, sqlIn(row.cardBrand, card.brands)))
        }
        if hideExpired {
            let today = (PurseCore.Calendar.year(of: now), PurseCore.Calendar.month(of: now))
            let expiry: Bool? = row.cardExpYear.flatMap { year in row.cardExpMonth.map { (year, $0) >= today } }
            result = sqlAnd(result, sqlOr(!isCard, expiry))
        }
        if !allowRedisplay.isEmpty {
            result = sqlAnd(result, allowRedisplay.contains(row.model.allowRedisplay))
        }
        if !countries.isEmpty {
            result = sqlAnd(result, sqlIn(row.country, countries))
        }
        return result
    }
}

/// `value = ANY(list)`: NULL for a NULL value.
private func sqlIn(_ value: String?, _ list: [String]) -> Bool? {
    value.map(list.contains)
}

private func sqlAnd(_ left: Bool?, _ right: Bool?) -> Bool? {
    if left == false || right == false { return false }
    if left == nil || right == nil { return nil }
    return true
}

private func sqlOr(_ left: Bool?, _ right: Bool?) -> Bool? {
    if left == true || right == true { return true }
    if left == nil || right == nil { return nil }
    return false
}

/// ``PaymentMethodRepository`` on ``InMemoryDatabase``.
struct InMemoryPaymentMethodRepository: PaymentMethodRepository {
    let database: InMemoryDatabase

    func insert(_ new: NewPaymentMethod, account: String, customer: String?) async throws {
        try await database.write { state in
            let model = new.model
            guard state.paymentMethods[model.id] == nil else { throw InMemoryDatabaseError.constraint("payment_methods_pkey") }
            if let customer, state.customers[customer] == nil {
                throw InMemoryDatabaseError.constraint("payment_methods_customer_id_fkey")
            }
            let card = model.card
            var row = PaymentMethodRow(
                model: model, account: account, state: customer == nil ? .unattached : .attached, customerID: customer,
                processorReference: new.processorReference, type: new.type,
                fingerprint: card?.fingerprint ?? model.usBankAccount?.fingerprint ?? model.sepaDebit?.fingerprint ?? "",
                cardBrand: card?.brand, cardFunding: card?.funding, cardExpMonth: card?.expMonth, cardExpYear: card?.expYear,
                country: card?.country ?? model.sepaDebit?.country ?? (model.usBankAccount == nil ? nil : "US"), seq: state.nextSeq()
            )
            row.writeDetails(of: model)
            state.paymentMethods[model.id] = row
        }
    }

    func find(_ id: String, visibleTo visibility: Visibility, lock: Bool) async throws -> StoredPaymentMethod? {
        await database.read { state in
            guard let row = state.paymentMethods[id], row.isVisible(to: visibility) else { return nil }
            return row.stored
        }
    }

    func listAttached(_ query: AttachedMethodsQuery, pagination: Pagination) async throws -> Page<RenderedJSON>? {
        try await database.read { state in
            // An unknown customer is named before an unknown cursor.
            guard let owner = state.customers[query.customer], owner.isVisible(to: query.visibility), !owner.deleted else {
                return nil
            }
            return try InMemoryKeysetList.page(
                state.paymentMethods.values,
                where: { row in
                    row.account == query.visibility.account && row.customerID == query.customer && row.isAttached
                        && (query.type == nil || row.type == query.type)
                        && (query.allowRedisplay == nil || row.model.allowRedisplay == query.allowRedisplay)
                        && (query.filter.map { $0.admits(row, now: query.now) == true } ?? true)
                },
                pagination: pagination, noun: "payment method", decode: { try $0.rendered }
            )
        }
    }

    func sheet(_ query: SheetMethodsQuery) async throws -> SheetMethods? {
        await database.read { state in
            guard let owner = state.customers[query.customer], owner.account == query.account, !owner.deleted else { return nil }
            let methods = state.paymentMethods.values
                .filter { row in
                    row.account == query.account && row.customerID == owner.id && row.isAttached
                        && (query.allowRedisplay.contains(row.model.allowRedisplay) || row.id == (query.alsoShowing ?? ""))
                        && query.filter.admits(row, now: query.now) == true
                }
                .sorted { ($0.created, $0.seq) > ($1.created, $1.seq) }
                .prefix(100)
                .map(\.stored.model)
            return SheetMethods(methods: Array(methods), defaultMethod: owner.customer.invoiceSettings.defaultPaymentMethod)
        }
    }

    func passes(_ id: String, account: String, filter: CustomerSheetSettings.SavedPaymentMethodFilter, now: Int) async throws -> Bool {
        await database.read { state in
            guard let row = state.paymentMethods[id], row.account == account else { return false }
            // A condition PostgreSQL finds NULL (a column the filter needs is NULL) is coalesced to false.
            return filter.admits(row, now: now) ?? false
        }
    }

    func update(_ method: PaymentMethod, account: String) async throws {
        try await database.write { state in
            guard var row = state.paymentMethods[method.id], row.account == account else { return }
            row.model.billingDetails = method.billingDetails
            row.model.allowRedisplay = method.allowRedisplay
            row.model.metadata = method.metadata
            row.writeDetails(of: method)
            row.cardExpMonth = method.card?.expMonth
            row.cardExpYear = method.card?.expYear
            state.paymentMethods[method.id] = row
        }
    }

    func attach(_ id: String, to customer: String, account: String, limit: Int) async throws -> PaymentMethod? {
        try await database.write { state in
            guard var row = state.paymentMethods[id], row.account == account, row.state == .unattached else { return nil }
            let attached = state.paymentMethods.values.count { $0.account == account && $0.customerID == customer && $0.isAttached }
            guard attached < limit else { return nil }
            guard state.customers[customer] != nil else { throw InMemoryDatabaseError.constraint("payment_methods_customer_id_fkey") }
            row.state = .attached
            row.customerID = customer
            state.paymentMethods[id] = row
            return row.stored.model
        }
    }

    func isAttached(_ id: String, to customer: String, account: String) async throws -> Bool {
        await database.read { state in
            guard let row = state.paymentMethods[id] else { return false }
            return row.account == account && row.customerID == customer && row.isAttached
        }
    }

    func attachedCount(customer: String, account: String) async throws -> Int {
        await database.read { state in
            state.paymentMethods.values.count { $0.account == account && $0.customerID == customer && $0.isAttached }
        }
    }

    func detach(_ id: String, from customer: String, account: String) async throws -> PaymentMethod? {
        try await database.write { state in
            guard var row = state.paymentMethods[id], row.account == account, row.customerID == customer, row.isAttached else {
                return nil
            }
            row.state = .detached
            row.customerID = nil
            state.paymentMethods[id] = row
            return row.stored.model
        }
    }

    func detachAll(from customer: String, account: String) async throws -> [PaymentMethod] {
        try await database.write { state in
            var detached: [PaymentMethod] = []
            for var row in state.paymentMethods.values where row.account == account && row.customerID == customer && row.isAttached {
                row.state = .detached
                row.customerID = nil
                state.paymentMethods[row.id] = row
                detached.append(row.stored.model)
            }
            return detached
        }
    }

    func latestCard(
        fingerprint: String, customer: String, excluding excluded: String, account: String
    ) async throws
        -> PaymentMethod?
    {
        await database.read { state in
            state.paymentMethods.values
                .filter {
                    $0.account == account && $0.customerID == customer && $0.isAttached && $0.type == .card
                        && $0.fingerprint == fingerprint && $0.id != excluded
                }
                .max { ($0.created, $0.seq) < ($1.created, $1.seq) }?
                .stored.model
        }
    }
}
