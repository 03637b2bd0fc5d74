/// Request parameters as a tree, whatever encoding they came in (form, query string or JSON).
/// Scalars stay text; the typed decoder reads them as the parameter's type.
public indirect enum ParamValue: Sendable, Equatable {
    case string(String)
    case array([ParamValue])
    case object(ParamObject)

    /// An empty value: `key=` in a form, `null` or `""` in JSON. It means "unset" or "clear".
    public var isEmpty: Bool { self == .string("") }

    public subscript(key: String) -> ParamValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }
}

/// Parameters by name, in the order they arrived.
public struct ParamObject: Sendable, Equatable {
    public private(set) var entries: [(key: String, value: ParamValue)] = []
    /// Each key's first position in `entries`, so decoding a hash of n keys (metadata, say) reads
    /// each in O(1) rather than searching: a hostile body of thousands of keys stays linear.
    private var indexByKey: [String: Int] = [:]

    public init() {}

    public init(_ entries: [(String, ParamValue)]) {
        self.entries = entries.map { (key: $0.0, value: $0.1) }
        for (index, entry) in entries.enumerated().reversed() { indexByKey[entry.0] = index }
    }

    public subscript(key: String) -> ParamValue? {
        get { indexByKey[key].map { entries[$0].value } }
        set {
            switch (indexByKey[key], newValue) {
            case (let index?, let value?):
                entries[index].value = value
            case (let index?, nil):
                entries.remove(at: index)
                indexByKey = [:]
                for (index, entry) in entries.enumerated().reversed() { indexByKey[entry.key] = index }
            case (nil, let value?):
                indexByKey[key] = entries.count
                entries.append((key, value))
            case (nil, nil):
                break
            }
        }
    }

    public var keys: [String] { entries.map(\.key) }
    public var isEmpty: Bool { entries.isEmpty }

    /// The elements in index order when every key is a non-negative integer (`a[0]=`, `a[1]=`),
    /// which is how Stripe's SDKs send arrays.
    public var indexedElements: [ParamValue]? {
        var indexed: [(Int, ParamValue)] = []
        for entry in entries {
            guard let index = Int(entry.key), index >= 0, String(index) == entry.key else { return nil }
            indexed.append((index, entry.value))
        }
        return indexed.sorted { $0.0 < $1.0 }.map(\.1)
    }

    public static func == (lhs: ParamObject, rhs: ParamObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
