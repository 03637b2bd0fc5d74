/// Decodes a `Decodable` value from a ``JSONValue``, the mirror of ``JSONValueEncoder``.
///
/// Models stored in `jsonb` columns are read back through it (parsed by ``JSONReader``): listing
/// a customer's methods decodes each one's details and billing details, and Foundation's
/// `JSONDecoder` spent a quarter of the server's time there. Numbers convert as Foundation's do
/// (an integral double reads as an `Int`, an `Int` as a `Double`); errors are `DecodingError`s.
public struct JSONValueDecoder {
    public init() {}

    public func decode<Value: Decodable>(_: Value.Type, from json: JSONValue) throws -> Value {
        try DecodingNode(value: json, codingPath: []).decodeValue(Value.self)
    }
}

/// One place in the tree being decoded: the decoder, and its single-value container.
struct DecodingNode: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func decodeValue<Value: Decodable>(_: Value.Type) throws -> Value {
        // Free-form JSON (metadata, say) is taken as it is, without a walk through its init.
        if Value.self == JSONValue.self { return value as! Value }
        return try Value(from: self)
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(KeyedDecodingNode<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self) }
        return UnkeyedDecodingNode(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }

    func decode(_: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
        return flag
    }

    func decode(_: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self) }
        return text
    }

    func decode(_: Double.Type) throws -> Double {
        switch value {
        case .double(let number): return number
        case .int(let number): return Double(number)
        default: throw mismatch(Double.self)
        }
    }

    func decode(_: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    func decode(_: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    func decode(_: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    func decode(_: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    func decode(_: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    func decode(_: UInt.Type) throws -> UInt { try integer(UInt.self) }
    func decode(_: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    func decode(_: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    func decode(_: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    func decode(_: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }

    func decode<Value: Decodable>(_: Value.Type) throws -> Value { try decodeValue(Value.self) }

    private func integer<Integer: FixedWidthInteger>(_: Integer.Type) throws -> Integer {
        switch value {
        case .int(let number):
            if let exact = Integer(exactly: number) { return exact }
        case .double(let number):
            if let exact = Integer(exactly: number) { return exact }
        default:
            break
        }
        throw mismatch(Integer.self)
    }

    private func mismatch(_ expected: Any.Type) -> DecodingError {
        .typeMismatch(expected, .init(codingPath: codingPath, debugDescription: "Expected \(expected), found \(value)."))
    }
}

struct KeyedDecodingNode<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try node(for: key).value == .null }

    func decode<Value: Decodable>(_: Value.Type, forKey key: Key) throws -> Value {
        if let found = object[key.stringValue], let scalar = Self.scalar(Value.self, in: found) { return scalar }
        return try node(for: key).decodeValue(Value.self)
    }

    func decodeIfPresent<Value: Decodable>(_: Value.Type, forKey key: Key) throws -> Value? {
        guard let found = object[key.stringValue], found != .null else { return nil }
        if let scalar = Self.scalar(Value.self, in: found) { return scalar }
        return try DecodingNode(value: found, codingPath: codingPath + [key]).decodeValue(Value.self)
    }

    /// Most fields are strings, integers or flags: read in place, without a node or a coding
    /// path (anything else, a mismatch included, takes the general way and its error).
    private static func scalar<Value>(_: Value.Type, in json: JSONValue) -> Value? {
        switch json {
        case .string(let text) where Value.self == String.self: return (text as! Value)
        case .int(let number) where Value.self == Int.self: return (number as! Value)
        case .bool(let flag) where Value.self == Bool.self: return (flag as! Value)
        default: return nil
        }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try node(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try node(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try node(for: AnyKey("super")) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try node(for: key) }

    private func node(for key: some CodingKey) throws -> DecodingNode {
        guard let found = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\".")
            )
        }
        return DecodingNode(value: found, codingPath: codingPath + [key])
    }
}

struct UnkeyedDecodingNode: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard try peek().value == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_: Value.Type) throws -> Value {
        let decoded = try peek().decodeValue(Value.self)
        currentIndex += 1
        return decoded
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try peek().container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try peek().unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try peek()
        currentIndex += 1
        return decoder
    }

    private func peek() throws -> DecodingNode {
        let key = AnyKey(intValue: currentIndex)!
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                JSONValue.self, .init(codingPath: codingPath + [key], debugDescription: "The array has no more elements.")
            )
        }
        return DecodingNode(value: elements[currentIndex], codingPath: codingPath + [key])
    }
}
