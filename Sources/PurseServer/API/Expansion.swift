import PurseCore
import PurseModels

/// The kinds of object the API returns, as far as `expand` is concerned.
public enum ObjectType: String, Sendable, Hashable {
    case customer
    case paymentMethod = "payment_method"
    case setupIntent = "setup_intent"
    case customerSession = "customer_session"
    case event
    case ephemeralKey = "ephemeral_key"
    case webhookEndpoint = "webhook_endpoint"
    case sheetSettings = "customer_sheet_settings"
    case selectedPaymentOption = "selected_payment_option"
    case elementsSession = "elements_session"
    case credentialRevocation = "credential_revocation"
    case financialConnectionsSession = "financial_connections.session"
    case financialConnectionsAccount = "financial_connections.account"
    case financialConnectionsSynchronization = "financial_connections_synchronization"
    case billingPortalConfiguration = "billing_portal.configuration"
    case billingPortalSession = "billing_portal.session"
    case testClock = "test_helpers.test_clock"
}

/// What a route returns, which decides what its `expand[]` may name.
public enum Returns: Sendable, Equatable {
    case object(ObjectType)
    case list(of: ObjectType)
    /// Stripe's `search_result`: its objects' fields, and `total_count`.
    case searchResult(of: ObjectType)
    /// Responses without expandable fields (deleted stubs, health, pages).
    case plain
}

/// `expand[]`: which id fields of which objects may be replaced by the object they name, and
/// the work of doing so.
struct Expansion {
    /// Expandable fields per object type, by their dotted path within the object.
    static let expandableFields: [ObjectType: [String: ObjectType]] = [
        .customer: ["invoice_settings.default_payment_method": .paymentMethod, "test_clock": .testClock],
        .paymentMethod: ["customer": .customer],
        .setupIntent: ["customer": .customer, "payment_method": .paymentMethod],
        .customerSession: ["customer": .customer],
        .selectedPaymentOption: ["payment_method": .paymentMethod],
        .elementsSession: ["payment_method_preference.setup_intent": .setupIntent],
    ]

    /// Fields the SDKs ask to expand that Purse always answers as null: nothing to expand, so
    /// the request is accepted as it is (the mobile SDKs' synchronize expands the native flow's
    /// auth session, which Purse's web flow never has).
    static let alwaysNullFields: [ObjectType: Set<String>] = [
        .financialConnectionsSynchronization: ["manifest.active_auth_session"]
    ]

    /// The deepest path accepted, in dot-separated segments.
    static let maximumDepth = 4

    /// Fields to expand at one level, each with what to expand inside the object it becomes.
    struct Tree: Sendable, Equatable {
        var fields: [String: (type: ObjectType, children: Tree)] = [:]
        /// `expand[]=total_count` on a search: the handler counts.
        var totalCount = false

        static func == (lhs: Tree, rhs: Tree) -> Bool {
            lhs.totalCount == rhs.totalCount && lhs.fields.keys.sorted() == rhs.fields.keys.sorted()
                && lhs.fields.allSatisfy { rhs.fields[$0.key]?.type == $0.value.type && rhs.fields[$0.key]?.children == $0.value.children }
        }

        var isEmpty: Bool { fields.isEmpty }
    }

    /// Checks every path against what `returns` can expand; done before the request runs, so a
    /// bad path changes nothing.
    static func plan(_ paths: [String], for returns: Returns) throws -> Tree {
        var tree = Tree()
        for path in paths {
            guard path.split(separator: ".", omittingEmptySubsequences: false).count <= maximumDepth else {
                throw PurseError.invalidParameter("expand", "You cannot expand more than \(maximumDepth) levels of a property (\(path)).")
            }
            switch returns {
            case .object(let type) where alwaysNullFields[type]?.contains(path) == true:
                continue
            case .object(let type):
                try add(path, fullPath: path, type: type, to: &tree)
            case .searchResult where path == "total_count":
                tree.totalCount = true
            case .list(let type), .searchResult(let type):
                guard path.hasPrefix("data.") else { throw notExpandable(path) }
                try add(String(path.dropFirst(5)), fullPath: path, type: type, to: &tree)
            case .plain:
                throw notExpandable(path)
            }
        }
        return tree
    }

    private static func add(_ path: String, fullPath: String, type: ObjectType, to tree: inout Tree) throws {
        let fields = expandableFields[type] ?? [:]
        // The longest declared field the path starts with, ending at a dot or the path's end.
        let match = fields.keys.filter { path == $0 || path.hasPrefix($0 + ".") }.max { $0.count < $1.count }
        guard let field = match, let target = fields[field] else { throw notExpandable(fullPath) }
        var node = tree.fields[field] ?? (target, Tree())
        if path.count > field.count {
            try add(String(path.dropFirst(field.count + 1)), fullPath: fullPath, type: target, to: &node.children)
        }
        tree.fields[field] = node
    }

    private static func notExpandable(_ path: String) -> PurseError {
        PurseError.invalidParameter("expand", "This property cannot be expanded (\(path)).")
    }

    /// Loads an object by type and id as the caller may see it; nil when it cannot.
    typealias Loader = @Sendable (ObjectType, String) async throws -> JSONValue?

    static func apply(_ tree: Tree, to value: JSONValue, returns: Returns, load: Loader) async throws -> JSONValue {
        guard !tree.isEmpty else { return value }
        switch returns {
        case .object:
            return try await expand(value, tree: tree, load: load)
        case .list, .searchResult:
            guard case .array(let elements) = value["data"] ?? .null else { return value }
            var expanded: [JSONValue] = []
            for element in elements { expanded.append(try await expand(element, tree: tree, load: load)) }
            var result = value
            result["data"] = .array(expanded)
            return result
        case .plain:
            return value
        }
    }

    private static func expand(_ object: JSONValue, tree: Tree, load: Loader) async throws -> JSONValue {
        var result = object
        for (field, node) in tree.fields.sorted(by: { $0.key < $1.key }) {
            let segments = field.split(separator: ".").map(String.init)
            guard let current = value(at: segments, in: result) else { continue }
            let replacement: JSONValue
            switch current {
            case .string(let id):
                guard let loaded = try await load(node.type, id) else { continue }
                replacement = try await expand(loaded, tree: node.children, load: load)
            case .object:
                replacement = try await expand(current, tree: node.children, load: load)
            default:
                continue
            }
            result = setting(replacement, at: segments, in: result)
        }
        return result
    }

    private static func value(at path: [String], in object: JSONValue) -> JSONValue? {
        path.reduce(Optional(object)) { $0?[$1] }
    }

    private static func setting(_ value: JSONValue, at path: [String], in object: JSONValue) -> JSONValue {
        guard let first = path.first else { return value }
        var result = object
        result[first] = setting(value, at: Array(path.dropFirst()), in: object[first] ?? .null)
        return result
    }
}
