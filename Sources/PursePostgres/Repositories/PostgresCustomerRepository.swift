import Postgres
import PurseCore
import PurseModels

/// ``CustomerRepository`` on the `customers` table.
struct PostgresCustomerRepository: CustomerRepository {
    let connection: PostgresConnection

    private static let columns = """
        id, created, email, name, phone, description, address, shipping, metadata, preferred_locales,
        invoice_prefix, default_payment_method, selected_option, deleted, test_clock
        """

    private static let list = KeysetList(table: "customers", columns: columns, noun: "customer")

    func insert(_ customer: Customer, account: String, announcing created: NewEvent) async throws {
        try connection.queryLater(
            """
            WITH customer AS (
                INSERT INTO customers (id, account_id, created, email, name, phone, description, address, shipping,
                                       metadata, preferred_locales, invoice_prefix, test_clock)
                VALUES (\(customer.id), \(account), \(customer.created), \(customer.email), \(customer.name),
                        \(customer.phone), \(customer.description), \(StoredJSON.encodeIfPresent(customer.address)),
                        \(StoredJSON.encodeIfPresent(customer.shipping)), \(StoredJSON.encode(customer.metadata)),
                        \(PostgresTextArray(customer.preferredLocales)), \(customer.invoicePrefix), \(customer.testClock))
            ), \(PostgresEventRepository.clauses(recording: created))
            SELECT 1
            """
        )
    }

    func find(_ id: String, visibleTo visibility: Visibility) async throws -> CustomerLookup? {
        let rows = try await connection.query(
            "SELECT \(unsafeSQL: Self.columns) FROM customers WHERE id = \(id) AND \(Self.scope(visibility))"
        )
        guard let row = rows.first else { return nil }
        if try row["deleted", as: Bool.self] { return .deleted(id: id) }
        return .live(try Self.customer(row))
    }

    func lockLive(_ id: String, visibleTo visibility: Visibility) async throws -> StoredCustomer? {
        let rows = try await connection.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM customers
            WHERE id = \(id) AND \(Self.scope(visibility)) AND NOT deleted
            FOR UPDATE
            """
        )
        return try rows.first.map { row in
            StoredCustomer(customer: try Self.customer(row), selectedOption: try Self.selectedOption(row))
        }
    }

    func isLive(_ id: String, visibleTo visibility: Visibility) async throws -> Bool {
        !(try await connection.query("SELECT 1 FROM customers WHERE id = \(id) AND \(Self.scope(visibility)) AND NOT deleted").isEmpty)
    }

    func clock(ofLive id: String, visibleTo visibility: Visibility) async throws -> CustomerClock? {
        guard visibility.includes(customer: id) else { return nil }
        return try await connection.query(
            """
            SELECT t.frozen_time FROM customers c LEFT JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
            WHERE c.id = \(id) AND c.account_id = \(visibility.account) AND NOT c.deleted
            """
        ).first.map { CustomerClock(time: try $0["frozen_time"]) }
    }

    func selection(of id: String, visibleTo visibility: Visibility) async throws -> CustomerSelection? {
        guard visibility.includes(customer: id) else { return nil }
        let methodColumns = PostgresPaymentMethodRepository.columns.split(separator: ",")
            .map { "pm." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
        let rows = try await connection.query(
            """
            SELECT c.selected_option, t.frozen_time AS clock_time, \(unsafeSQL: methodColumns)
            FROM customers c
            LEFT JOIN payment_methods pm
                ON pm.id = c.default_payment_method AND pm.account_id = c.account_id AND c.selected_option = 'payment_method'
            LEFT JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
            WHERE c.id = \(id) AND c.account_id = \(visibility.account) AND NOT c.deleted
            """
        )
        guard let row = rows.first else { return nil }
        let option = try Self.selectedOption(row)
        let method = option == .paymentMethod ? try PostgresPaymentMethodRepository.paymentMethod(row) : nil
        return CustomerSelection(option: option, paymentMethod: method, clockTime: try row["clock_time"])
    }

    func update(_ stored: StoredCustomer, account: String) async throws {
        let customer = stored.customer
        try connection.queryLater(
            """
            UPDATE customers
            SET email = \(customer.email), name = \(customer.name), phone = \(customer.phone),
                description = \(customer.description), address = \(StoredJSON.encodeIfPresent(customer.address)),
                shipping = \(StoredJSON.encodeIfPresent(customer.shipping)), metadata = \(StoredJSON.encode(customer.metadata)),
                preferred_locales = \(PostgresTextArray(customer.preferredLocales)),
                default_payment_method = \(customer.invoiceSettings.defaultPaymentMethod),
                selected_option = \(stored.selectedOption?.rawValue)
            WHERE id = \(customer.id) AND account_id = \(account)
            """
        )
    }

    func tombstone(_ id: String, account: String) async throws {
        try connection.queryLater(
            """
            UPDATE customers
            SET deleted = true, email = NULL, name = NULL, phone = NULL, description = NULL, address = NULL,
                shipping = NULL, metadata = '{}', preferred_locales = '{}', default_payment_method = NULL,
                selected_option = NULL
            WHERE id = \(id) AND account_id = \(account)
            """
        )
    }

    func list(_ query: CustomerQuery, pagination: Pagination) async throws -> Page<Customer> {
        var filter: PostgresQuery = "account_id = \(query.account) AND NOT deleted"
        if let email = query.email { filter.append(" AND email = \(email)") }
        if let created = query.created { filter.append(" AND \(created.condition(on: "created"))") }
        if let clock = query.testClock {
            filter.append(" AND test_clock = \(clock)")
        } else {
            filter.append(" AND test_clock IS NULL")
        }
        return try await Self.list.page(on: connection, where: filter, pagination: pagination, decode: Self.customer)
    }

    func search(
        _ query: SearchQuery, account: String, after position: SearchPosition?, limit: Int
    ) async throws
        -> SearchResultPage<Customer>
    {
        var filter = Self.searchFilter(query, account: account)
        if let position { filter.append(" AND (created, seq) < (\(position.created), \(position.sequence))") }
        // Found through the search indexes first when they narrow it (a MATERIALIZED CTE keeps
        // the planner from walking the account's customers in order instead, hoping to fill the
        // page early: at 1M customers that read every row, seconds for a match of one).
        let rows =
            query.narrowsThroughAnIndex
            ? try await connection.query(
                """
                WITH matching AS MATERIALIZED (SELECT \(unsafeSQL: Self.columns), seq FROM customers WHERE \(filter))
                SELECT * FROM matching ORDER BY created DESC, seq DESC LIMIT \(limit + 1)
                """
            )
            : try await connection.query(
                """
                SELECT \(unsafeSQL: Self.columns), seq FROM customers WHERE \(filter)
                ORDER BY created DESC, seq DESC LIMIT \(limit + 1)
                """
            )
        let page = rows.prefix(limit)
        var next: SearchPosition?
        if rows.count > limit, let last = page.last {
            next = SearchPosition(created: try last["created"], sequence: try last["seq"])
        }
        return SearchResultPage(data: try page.map(Self.customer), next: next)
    }

    func count(_ query: SearchQuery, account: String, upTo limit: Int) async throws -> Int {
        let rows = try await connection.query(
            """
            SELECT count(*) AS total
            FROM (SELECT 1 FROM customers WHERE \(Self.searchFilter(query, account: account)) LIMIT \(limit)) AS matching
            """
        )
        return try rows.first.map { try $0["total"] } ?? 0
    }

    /// The column of each field ``CustomerSearchParameters/parser`` admits.
    private static let searchColumns = [
        "created": "created", "email": "email", "metadata": "metadata", "name": "name", "phone": "phone",
    ]

    private static func searchFilter(_ query: SearchQuery, account: String) -> PostgresQuery {
        "account_id = \(account) AND NOT deleted AND \(query.condition(columns: searchColumns))"
    }

    /// Customers in view: the account's, and for a customer's credential only that one.
    static func scope(_ visibility: Visibility) -> PostgresQuery {
        guard let customer = visibility.customer else { return "account_id = \(visibility.account)" }
        return "account_id = \(visibility.account) AND id = \(customer)"
    }

    private static func selectedOption(_ row: PostgresRow) throws -> SelectedOption? {
        guard let text: String = try row["selected_option"] else { return nil }
        guard let option = SelectedOption(rawValue: text) else {
            throw PurseError(.invalidRequest, message: "A stored customer is malformed")
        }
        return option
    }

    private static func customer(_ row: PostgresRow) throws -> Customer {
        var customer = Customer(
            id: try row["id"],
            created: try row["created"],
            address: try StoredJSON.decodeIfPresent(Address.self, from: try row["address"]),
            description: try row["description"],
            email: try row["email"],
            invoicePrefix: try row["invoice_prefix"],
            invoiceSettings: InvoiceSettings(defaultPaymentMethod: try row["default_payment_method"]),
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]),
            name: try row["name"],
            phone: try row["phone"],
            preferredLocales: try row["preferred_locales", as: PostgresTextArray.self].elements,
            shipping: try StoredJSON.decodeIfPresent(Shipping.self, from: try row["shipping"])
        )
        customer.testClock = try row["test_clock"]
        return customer
    }
}
