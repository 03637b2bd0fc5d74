import NIOCore
import PurseCore
import PurseModels
import Testing

@testable import PurseParameters
@testable import PurseServer

// MARK: - Stripe-Version

@Suite("StripeVersion: the Stripe-Version header")
struct StripeVersionTests {
    @Test(arguments: [
        ("2020-08-27", "2020-08-27"),
        ("2026-10-28.endive", "2026-10-28.endive"),
        ("2020-08-27; beta=v1", "2020-08-27"),
        ("2020-08-27;a=b;c=d", "2020-08-27"),
        ("2025-03-31.basil; stripe_beta=v2-1.0", "2025-03-31.basil"),
        (" 2024-06-20 ", "2024-06-20"),
    ])
    func acceptedVersions(header: String, version: String) throws {
        #expect(try StripeVersion.parse(header) == version)
    }

    @Test func noHeaderIsNoVersion() throws {
        #expect(try StripeVersion.parse(nil) == nil)
    }

    @Test(arguments: [
        "2020-13-01", "2020-00-10", "2020-08-32", "2020-08-00", "20-08-27", "2020-8-27", "2020/08/27",
        "2020-08-27x", "2020-08-27.", "2020-08-27.a.b", "2020-08-27.end ive", "２０２０-08-27",
        "latest", "", " ", "2020-08-27; beta", "2020-08-27;", "2020-08-27; =v1", "2020-08-27; beta=",
        "2020-08-27; be ta=v1", "; beta=v1",
    ])
    func refusedVersions(header: String) {
        let error = #expect(throws: PurseError.self) { try StripeVersion.parse(header) }
        #expect(error?.category == .invalidRequest)
        #expect(error?.param == "Stripe-Version")
    }
}

// MARK: - expand[] parameters

@Suite("RequestParameters.extractExpand")
struct ExtractExpandTests {
    private func extract(_ body: String) throws -> (paths: [String], rest: ParamObject) {
        var params = try FormParser.parse(Array(body.utf8))
        let paths = try RequestParameters.extractExpand(from: &params)
        return (paths, params)
    }

    @Test(arguments: [
        "expand[]=customer&expand[]=payment_method",
        "expand[0]=customer&expand[1]=payment_method",
        "expand%5B1%5D=payment_method&expand%5B0%5D=customer",
    ])
    func everyArrayFormGivesThePathsInOrder(body: String) throws {
        #expect(try extract(body).paths == ["customer", "payment_method"])
    }

    @Test func expandIsTakenOutAndTheRestIsLeftAlone() throws {
        let (paths, rest) = try extract("email=a&expand[]=customer&limit=3")
        #expect(paths == ["customer"])
        #expect(rest == ParamObject([("email", .string("a")), ("limit", .string("3"))]))
    }

    @Test func aSingleValueAnEmptyOneAndNone() throws {
        #expect(try extract("expand=customer").paths == ["customer"])
        #expect(try extract("expand=").paths == [])
        #expect(try extract("email=a").paths == [])
    }

    @Test func aJSONArray() throws {
        var params = try RequestParameters.fromBody(
            ByteBuffer(string: #"{"expand":["customer"]}"#), contentType: "application/json"
        )
        #expect(try RequestParameters.extractExpand(from: &params) == ["customer"])
        #expect(params.isEmpty)
    }

    @Test(arguments: ["expand[x]=customer", "expand[0][x]=customer", "expand[]=", "expand[0]=a&expand[1]="])
    func anythingButStringsIsRefused(body: String) {
        let error = #expect(throws: PurseError.self) { try extract(body) }
        #expect(error?.param == "expand")
    }
}

// MARK: - Expansion.plan

@Suite("Expansion.plan: which paths a route may expand")
struct ExpansionPlanTests {
    @Test(arguments: [
        ("invoice_settings.default_payment_method", Returns.object(.customer)),
        ("data.invoice_settings.default_payment_method", .list(of: .customer)),
        ("customer", .object(.paymentMethod)),
        ("data.customer", .list(of: .paymentMethod)),
        ("customer.invoice_settings.default_payment_method", .object(.paymentMethod)),
        ("customer.invoice_settings.default_payment_method", .object(.setupIntent)),
        ("payment_method.customer.invoice_settings.default_payment_method", .object(.setupIntent)),
        ("data.customer.invoice_settings.default_payment_method", .list(of: .setupIntent)),
        ("customer", .object(.customerSession)),
        ("payment_method", .object(.selectedPaymentOption)),
    ])
    func acceptedPaths(path: String, returns: Returns) throws {
        #expect(try !Expansion.plan([path], for: returns).isEmpty)
    }

    @Test(arguments: [
        ("nope", Returns.object(.customer)),
        ("invoice_settings", .object(.customer)),
        ("invoice_settings.default_payment_method.nope", .object(.customer)),
        ("default_payment_method", .object(.customer)),
        ("", .object(.customer)),
        ("customer.", .object(.paymentMethod)),
        (".customer", .object(.paymentMethod)),
        ("Customer", .object(.paymentMethod)),
        ("customer", .object(.event)),
        ("invoice_settings.default_payment_method", .list(of: .customer)),
        ("data", .list(of: .customer)),
        ("data.", .list(of: .customer)),
        ("data.nope", .list(of: .customer)),
        ("payment_method.customer.invoice_settings.default_payment_method.customer", .object(.setupIntent)),
        ("data.payment_method.customer.invoice_settings.default_payment_method", .list(of: .setupIntent)),
        ("customer", .plain),
        ("data.customer", .plain),
    ])
    func refusedPaths(path: String, returns: Returns) {
        let error = #expect(throws: PurseError.self) { try Expansion.plan([path], for: returns) }
        #expect(error?.category == .invalidRequest)
        #expect(error?.param == "expand")
    }

    @Test func oneBadPathRefusesTheWholePlan() {
        #expect(throws: PurseError.self) {
            try Expansion.plan(["customer", "nope"], for: .object(.paymentMethod))
        }
    }

    @Test func noPathsIsAnEmptyPlanForAnyRoute() throws {
        #expect(try Expansion.plan([], for: .plain).isEmpty)
        #expect(try Expansion.plan([], for: .list(of: .customer)).isEmpty)
    }

    @Test func aPlanNamesTheFieldAndWhatItBecomes() throws {
        let tree = try Expansion.plan(["invoice_settings.default_payment_method"], for: .object(.customer))
        #expect(tree.fields.keys.sorted() == ["invoice_settings.default_payment_method"])
        #expect(tree.fields["invoice_settings.default_payment_method"]?.type == .paymentMethod)
        #expect(tree.fields["invoice_settings.default_payment_method"]?.children.isEmpty == true)
    }

    @Test func nestedPathsShareTheirParentField() throws {
        let tree = try Expansion.plan(
            ["customer", "customer.invoice_settings.default_payment_method", "payment_method"],
            for: .object(.setupIntent)
        )
        #expect(tree.fields.keys.sorted() == ["customer", "payment_method"])
        let customer = try #require(tree.fields["customer"])
        #expect(customer.type == .customer)
        #expect(customer.children.fields["invoice_settings.default_payment_method"]?.type == .paymentMethod)
        #expect(tree.fields["payment_method"]?.children.isEmpty == true)
    }

    @Test func aListPlanIsTheElementPlan() throws {
        let list = try Expansion.plan(["data.invoice_settings.default_payment_method"], for: .list(of: .customer))
        let object = try Expansion.plan(["invoice_settings.default_payment_method"], for: .object(.customer))
        #expect(list == object)
    }
}

// MARK: - Expansion.apply

/// Objects a fake loader knows by id, and the loads it was asked for.
private actor FakeStore {
    let objects: [String: JSONValue]
    private(set) var loads: [String] = []

    init(_ objects: [String: JSONValue]) { self.objects = objects }

    func load(_ type: ObjectType, _ id: String) -> JSONValue? {
        loads.append("\(type.rawValue):\(id)")
        return objects[id]
    }
}

@Suite("Expansion.apply: ids replaced by the objects they name")
struct ExpansionApplyTests {
    static let paymentMethod: JSONValue = ["id": "pm_1", "object": "payment_method", "customer": "cus_1"]

    static func customer(_ id: String, defaultPaymentMethod: JSONValue) -> JSONValue {
        ["id": .string(id), "object": "customer", "invoice_settings": ["default_payment_method": defaultPaymentMethod]]
    }

    static let store: [String: JSONValue] = [
        "pm_1": paymentMethod,
        "cus_1": customer("cus_1", defaultPaymentMethod: "pm_1"),
    ]

    private func expand(_ value: JSONValue, _ paths: [String], returns: Returns) async throws -> (JSONValue, [String]) {
        let store = FakeStore(Self.store)
        let tree = try Expansion.plan(paths, for: returns)
        let result = try await Expansion.apply(tree, to: value, returns: returns) { type, id in
            await store.load(type, id)
        }
        return (result, await store.loads)
    }

    @Test func anIdIsReplacedByItsObject() async throws {
        let (result, loads) = try await expand(
            Self.customer("cus_1", defaultPaymentMethod: "pm_1"),
            ["invoice_settings.default_payment_method"],
            returns: .object(.customer)
        )
        #expect(result == Self.customer("cus_1", defaultPaymentMethod: Self.paymentMethod))
        #expect(loads == ["payment_method:pm_1"])
    }

    @Test func nullIsLeftAlone() async throws {
        let customer = Self.customer("cus_2", defaultPaymentMethod: nil)
        let (result, loads) = try await expand(
            customer, ["invoice_settings.default_payment_method"], returns: .object(.customer)
        )
        #expect(result == customer)
        #expect(loads.isEmpty)
    }

    @Test func anIdTheLoaderCannotSeeStaysAnId() async throws {
        let customer = Self.customer("cus_3", defaultPaymentMethod: "pm_gone")
        let (result, loads) = try await expand(
            customer, ["invoice_settings.default_payment_method"], returns: .object(.customer)
        )
        #expect(result == customer)
        #expect(loads == ["payment_method:pm_gone"])
    }

    @Test func nestedPathsExpandInsideTheLoadedObject() async throws {
        let intent: JSONValue = ["id": "seti_1", "customer": "cus_1", "payment_method": nil]
        let (result, loads) = try await expand(
            intent, ["customer.invoice_settings.default_payment_method"], returns: .object(.setupIntent)
        )
        let expected: JSONValue = [
            "id": "seti_1",
            "customer": Self.customer("cus_1", defaultPaymentMethod: Self.paymentMethod),
            "payment_method": nil,
        ]
        #expect(result == expected)
        #expect(loads == ["customer:cus_1", "payment_method:pm_1"])
    }

    @Test func anAlreadyExpandedObjectIsExpandedInside() async throws {
        let intent: JSONValue = ["id": "seti_1", "customer": Self.customer("cus_1", defaultPaymentMethod: "pm_1")]
        let (result, loads) = try await expand(
            intent, ["customer.invoice_settings.default_payment_method"], returns: .object(.setupIntent)
        )
        #expect(result["customer"] == Self.customer("cus_1", defaultPaymentMethod: Self.paymentMethod))
        #expect(loads == ["payment_method:pm_1"])
    }

    @Test func everyElementOfAListIsExpanded() async throws {
        let list: JSONValue = [
            "object": "list",
            "data": [
                Self.customer("cus_1", defaultPaymentMethod: "pm_1"),
                Self.customer("cus_2", defaultPaymentMethod: nil),
                Self.customer("cus_3", defaultPaymentMethod: "pm_1"),
            ],
            "has_more": false,
            "url": "/v1/customers",
        ]
        let (result, loads) = try await expand(
            list, ["data.invoice_settings.default_payment_method"], returns: .list(of: .customer)
        )
        let expected: JSONValue = [
            "object": "list",
            "data": [
                Self.customer("cus_1", defaultPaymentMethod: Self.paymentMethod),
                Self.customer("cus_2", defaultPaymentMethod: nil),
                Self.customer("cus_3", defaultPaymentMethod: Self.paymentMethod),
            ],
            "has_more": false,
            "url": "/v1/customers",
        ]
        #expect(result == expected)
        #expect(loads == ["payment_method:pm_1", "payment_method:pm_1"])
    }

    @Test func anEmptyPlanLoadsNothing() async throws {
        let customer = Self.customer("cus_1", defaultPaymentMethod: "pm_1")
        let (result, loads) = try await expand(customer, [], returns: .object(.customer))
        #expect(result == customer)
        #expect(loads.isEmpty)
    }
}
