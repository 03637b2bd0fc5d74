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
        Customer(
            id: customer.id, created: customer.created, address: customer.address, description: customer.description,
            email: customer.email, invoicePrefix: customer.invoicePrefix,
            invoiceSettings: InvoiceSettings(defaultPaymentMethod: customer.invoiceSettings.defaultPaymentMethod),
            metadata: customer.metadata, name: customer.name, phone: customer.phone, preferredLocales: customer.preferredLocales,
            shipping: customer.shipping
        )
    }

    /// Customers in view: the account's, and for a customer's credential only that one.
    func isVisible(to visibility: Visibility) -> Bool {
        account == visibility.account && visibility.includes(customer: id)
    }
}

/// ``CustomerRepository`` on ``InMemoryDatabase``.
struct InMemoryCustomerRepository: CustomerRepository {
    let database: InMemoryDatabase

    func insert(_ customer: Customer, account: String) async throws {
        try await database.write { state in
            guard state.customers[customer.id] == nil else { throw InMemoryDatabaseError.constraint("customers_pkey") }
            var stored = CustomerRow.stored(customer)
            // The default is set by an update once the method is attached.
            stored.invoiceSettings.defaultPaymentMethod = nil
            state.customers[customer.id] = CustomerRow(
                customer: stored, account: account, selectedOption: nil, deleted: false, seq: state.nextSeq()
            )
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
            return CustomerSelection(option: row.selectedOption, paymentMethod: method)
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
            row.customer = Customer(id: id, created: row.customer.created, invoicePrefix: row.customer.invoicePrefix)
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
                        && (query.created?.contains(row.created) ?? true)
                },
                pagination: pagination, noun: "customer", decode: \.customer
            )
        }
    }
}
