/// Encodes an `Encodable` value into a ``JSONValue``.
///
/// Unlike Foundation's `JSONEncoder`, an optional property that is `nil` is written as `null`
/// rather than left out: Stripe's objects always carry their keys, and its SDKs read them.
/// Keys keep the order the type encodes them in.
public struct JSONValueEncoder {
    public init() {}

    public func encode(_ value: some Encodable) throws -> JSONValue {
        let box = EncodingBox()
        try ValueEncoder.encode(value, into: box, codingPath: [])
        return box.resolved()
    }
}

/// What an encoder has written so far at one place in the tree.
final class EncodingBox {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(key: String, slot: Slot)])
        case array([EncodingBox])
    }

    /// An object's field: a scalar written in place (no box to allocate, which most fields are),
    /// or a box for a nested value still being encoded.
    enum Slot {
        case value(JSONValue)
        case box(EncodingBox)

        var resolved: JSONValue {
            switch self {
            case .value(let value): return value
            case .box(let box): return box.resolved()
            }
        }
    }

    var content: Content = .empty

    func resolved() -> JSONValue {
        switch content {
        case .empty: return .object(JSONObject())
        case .value(let value): return value
        case .object(let entries): return .object(JSONObject(entries.map { ($0.key, $0.slot.resolved) }))
        case .array(let boxes): return .array(boxes.map { $0.resolved() })
        }
    }

    /// The box for `key`, created at the end when new (an earlier value under the key is
    /// replaced in its place); turns an empty box into an object.
    func child(forKey key: String) -> EncodingBox {
        let box = EncodingBox()
        put(.box(box), forKey: key)
        return box
    }

    func set(_ value: JSONValue, forKey key: String) {
        put(.value(value), forKey: key)
    }

    private func put(_ slot: Slot, forKey key: String) {
        var entries: [(key: String, slot: Slot)]
        if case .object(let existing) = content { entries = existing } else { entries = [] }
        // Let go of the stored array while it changes, so it is not copied.
        content = .empty
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index].slot = slot
        } else {
            entries.append((key, slot))
        }
        content = .object(entries)
    }

    func appendChild() -> EncodingBox {
        var boxes: [EncodingBox]
        if case .array(let existing) = content { boxes = existing } else { boxes = [] }
        let box = EncodingBox()
        content = .empty
        boxes.append(box)
        content = .array(boxes)
        return box
    }

    var arrayCount: Int {
        if case .array(let boxes) = content { return boxes.count }
        return 0
    }
}

struct ValueEncoder: Encoder {
    let box: EncodingBox
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = box.content {} else { box.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = box.content {} else { box.content = .array([]) }
        return UnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(box: box, codingPath: codingPath)
    }

    /// Encodes `value` into `box`, short-cutting values that are already JSON and scalars.
    static func encode<Value: Encodable>(_ value: Value, into box: EncodingBox, codingPath: [any CodingKey]) throws {
        if let json = scalar(value) {
            box.content = .value(json)
        } else {
            try value.encode(to: ValueEncoder(box: box, codingPath: codingPath))
        }
    }

    /// The JSON of a value that is already JSON or one of the scalars most fields hold. A generic
    /// call arrives here even for a `String`; comparing types costs far less than a trip through
    /// `encode(to:)` and an existential container.
    static func scalar<Value: Encodable>(_ value: Value) -> JSONValue? {
        if Value.self == JSONValue.self { return (value as! JSONValue) }
        if Value.self == String.self { return .string(value as! String) }
        if Value.self == Int.self { return .int(value as! Int) }
        if Value.self == Bool.self { return .bool(value as! Bool) }
        return nil
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { box.set(.null, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { box.set(.double(value), forKey: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { box.set(.double(Double(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.set(.int(value), forKey: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { box.set(.int(Int(value)), forKey: key.stringValue) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        if let json = ValueEncoder.scalar(value) {
            box.set(json, forKey: key.stringValue)
        } else {
            try value.encode(to: ValueEncoder(box: box.child(forKey: key.stringValue), codingPath: codingPath + [key]))
        }
    }

    // A nil optional is written as null: the whole point of this encoder.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: (some Encodable)?, forKey key: Key) throws {
        try encodeOptional(value, forKey: key)
    }

    private mutating func encodeOptional(_ value: (some Encodable)?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy _: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.child(forKey: key.stringValue)
        child.content = .object([])
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = box.child(forKey: key.stringValue)
        child.content = .array([])
        return UnkeyedContainer(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(box: box.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(box: box.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: EncodingBox
    let codingPath: [any CodingKey]
    var count: Int { box.arrayCount }

    mutating func encodeNil() throws { box.appendChild().content = .value(.null) }
    mutating func encode(_ value: Bool) throws { box.appendChild().content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { box.appendChild().content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { box.appendChild().content = .value(.double(value)) }
    mutating func encode(_ value: Int) throws { box.appendChild().content = .value(.int(value)) }

    mutating func encode(_ value: some Encodable) throws {
        try ValueEncoder.encode(value, into: box.appendChild(), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = box.appendChild()
        child.content = .object([])
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = box.appendChild()
        child.content = .array([])
        return UnkeyedContainer(box: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(box: box.appendChild(), codingPath: codingPath)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { box.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { box.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { box.content = .value(.double(value)) }
    mutating func encode(_ value: Float) throws { box.content = .value(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { box.content = .value(.int(value)) }
    mutating func encode(_ value: Int8) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt8) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { box.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt64) throws { box.content = .value(.int(Int(value))) }

    mutating func encode(_ value: some Encodable) throws {
        try ValueEncoder.encode(value, into: box, codingPath: codingPath)
    }
}
