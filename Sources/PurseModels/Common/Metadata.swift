/// Key-value pairs a merchant attaches to an object, written with keys in sorted order so the
/// JSON is the same every time.
public struct Metadata: Codable, Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    public init(dictionaryLiteral elements: (String, String)...) {
        values = Dictionary(elements, uniquingKeysWith: { $1 })
    }

    public subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public var isEmpty: Bool { values.isEmpty }

    public init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: String].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for key in values.keys.sorted() { try container.encode(values[key]!, forKey: AnyKey(key)) }
    }
}
