import PurseModels

@testable import PurseCore

/// A row of `customers`: the columns ``PostgresCustomerRepository`` reads and writes.
struct CustomerRow: KeysetRow {
    var customer: Customer
    var account: String
    var selectedOption: SelectedOption?
    var deleted: Bool
    let seq: Int

    var id: String { customer.id }
    var created: Int { customer.created }

    /// The customer as a read builds it: only what has a column.
    static func stored(_ customer: Customer) -> Customer {
        var stored = Customer(
            id: customer.id, created: customer.created, address: customer.address, description: customer.description,
            email: customer.email, invoicePrefix: customer.invoicePrefix,
            invoiceSettings: InvoiceSettings(defaultPaymentMethod: customer.invoiceSettings.defaultPaymentMethod),
            metadata: customer.metadata, name: customer.name, phone: customer.phone, preferredLocales: customer.preferredLocales,
            shipping: customer.shipping
        )
        stored.testClock = customer.testClock
        return stored
    }

    /// Customers in view: the account's, and for a customer's credential only that one.
    func isVisible(to visibility: Visibility) -> Bool {
        account == visibility.account && visibility.includes(customer: id)
    }
}

/// ``CustomerRepository`` on ``InMemoryDatabase``.
struct InMemoryCustomerRepository: CustomerRepository {
    let database: InMemoryDatabase

    func insert(_ customer: Customer, account: String, announcing created: NewEvent) async throws {
        try await database.write { state in
            guard state.customers[customer.id] == nil else { throw InMemoryDatabaseError.constraint("customers_pkey") }
            var stored = CustomerRow.stored(customer)
            // The default is set by an update once the method is attached.
            stored.invoiceSettings.defaultPaymentMethod = nil
            state.customers[customer.id] = CustomerRow(
                customer: stored, account: account, selectedOption: nil, deleted: false, seq: state.nextSeq()
            )
            try InMemoryEventRepository.record(created, in: &state)
        }
    }

    func find(_ id: String, visibleTo visibility: Visibility) async throws -> CustomerLookup? {
        await database.read { state in
            guard let row = state.customers[id], row.isVisible(to: visibility) else { return nil }
            return row.deleted ? .deleted(id: id) : .live(row.customer)
        }
    }

    func lockLive(_ id: String, visibleTo visibility: Visibility) async throws -> StoredCustomer? {
        await database.read { state in
            guard let row = state.customers[id], row.isVisible(to: visibility), !row.deleted else { return nil }
            return StoredCustomer(customer: row.customer, selectedOption: row.selectedOption)
        }
    }

    func clock(ofLive id: String, visibleTo visibility: Visibility) async throws -> CustomerClock? {
        await database.read { state in
            guard let row = state.customers[id], row.isVisible(to: visibility), !row.deleted else { return nil }
            return CustomerClock(time: state.clockTime(ofCustomer: id))
        }
    }

    func isLive(_ id: String, visibleTo visibility: Visibility) async throws -> Bool {
        await database.read { state in
            guard let row = state.customers[id] else { return false }
            return row.isVisible(to: visibility) && !row.deleted
        }
    }

    func selection(of id: String, visibleTo visibility: Visibility) async throws -> CustomerSelection? {
        await database.read { state in
            guard visibility.includes(customer: id), let row = state.customers[id], row.account == visibility.account, !row.deleted
            else { return nil }
            // LEFT JOIN payment_methods ON id = default_payment_method AND selected_option = 'payment_method'
            var method: PaymentMethod?
            if row.selectedOption == .paymentMethod, let id = row.customer.invoiceSettings.defaultPaymentMethod {
                method = state.paymentMethods[id]?.stored.model
            }
            return CustomerSelection(option: row.selectedOption, paymentMethod: method, clockTime: state.clockTime(ofCustomer: id))
        }
    }

    func update(_ stored: StoredCustomer, account: String) async throws {
        try await database.write { state in
            guard var row = state.customers[stored.customer.id], row.account == account else { return }
            let new = stored.customer
            // customers_selected_method_is_default
            guard stored.selectedOption != .paymentMethod || new.invoiceSettings.defaultPaymentMethod != nil else {
                throw InMemoryDatabaseError.constraint("customers_selected_method_is_default")
            }
            row.customer.email = new.email
            row.customer.name = new.name
            row.customer.phone = new.phone
            row.customer.description = new.description
            row.customer.address = new.address
            row.customer.shipping = new.shipping
            row.customer.metadata = new.metadata
            row.customer.preferredLocales = new.preferredLocales
            row.customer.invoiceSettings.defaultPaymentMethod = new.invoiceSettings.defaultPaymentMethod
            row.selectedOption = stored.selectedOption
            state.customers[row.id] = row
        }
    }

    func tombstone(_ id: String, account: String) async throws {
        try await database.write { state in
            guard var row = state.customers[id], row.account == account else { return }
            row.deleted = true
            let clock = row.customer.testClock
            row.customer = Customer(id: id, created: row.customer.created, invoicePrefix: row.customer.invoicePrefix)
            row.customer.testClock = clock
            row.selectedOption = nil
            state.customers[id] = row
        }
    }

    func list(_ query: CustomerQuery, pagination: Pagination) async throws -> Page<Customer> {
        try await database.read { state in
            try InMemoryKeysetList.page(
                state.customers.values,
                where: { row in
                    row.account == query.account && !row.deleted && (query.email == nil || row.customer.email == query.email)
                        && (query.created?.contains(row.created) ?? true) && row.customer.testClock == query.testClock
                },
                pagination: pagination, noun: "customer", decode: \.customer
            )
        }
    }

    func search(
        _ query: SearchQuery, account: String, after position: SearchPosition?, limit: Int
    ) async throws
        -> SearchResultPage<Customer>
    {
        await database.read { state in
            let matching = Self.matching(query, account: account, in: state)
                .filter { row in position.map { (row.created, row.seq) < ($0.created, $0.sequence) } ?? true }
            let page = matching.prefix(limit)
            let next = matching.count > limit ? page.last.map { SearchPosition(created: $0.created, sequence: $0.seq) } : nil
            return SearchResultPage(data: page.map(\.customer), next: next)
        }
    }

    func count(_ query: SearchQuery, account: String, upTo limit: Int) async throws -> Int {
        await database.read { state in min(Self.matching(query, account: account, in: state).count, limit) }
    }

    /// The account's live customers matching `query`, newest first: the semantics of
    /// `SearchQuery+Condition.swift`, on values.
    private static func matching(_ query: SearchQuery, account: String, in state: InMemoryState) -> [CustomerRow] {
        state.customers.values
            .filter { row in
                guard row.account == account, !row.deleted else { return false }
                let results = query.clauses.map { $0.negated != matches($0, row.customer) }
                return query.connective == .and ? results.allSatisfy { $0 } : results.contains(true)
            }
            .sorted { ($0.created, $0.seq) > ($1.created, $1.seq) }
    }

    private static func matches(_ clause: SearchClause, _ customer: Customer) -> Bool {
        if let key = clause.key {
            guard let value = customer.metadata[key] else { return false }
            switch clause.value {
            case .null: return false
            case .text(let text): return value.lowercased() == text.lowercased()
            case .number(let number): return value == String(number)
            }
        }
        let text: String? =
            switch clause.field {
            case "email": customer.email
            case "name": customer.name
            case "phone": customer.phone
            default: nil
            }
        switch clause.value {
        case .null:
            return clause.field != "created" && text == nil
        case .number(let number):
            let created = customer.created
            switch clause.comparison {
            case .matches: return created == number
            case .greaterThan: return created > number
            case .greaterThanOrEqual: return created >= number
            case .lessThan: return created < number
            case .lessThanOrEqual: return created <= number
            case .contains: return false
            }
        case .text(let value):
            guard let text = text?.lowercased() else { return false }
            if clause.comparison == .contains { return text.contains(value.lowercased()) }
            let words = { (string: String) in string.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init) }
            let wanted = words(value)
            guard !wanted.isEmpty else { return text == value.lowercased() }
            let found = words(text)
            return found.count >= wanted.count
                && (0...(found.count - wanted.count)).contains { Array(found[$0..<($0 + wanted.count)]) == wanted }
        }
    }
}
