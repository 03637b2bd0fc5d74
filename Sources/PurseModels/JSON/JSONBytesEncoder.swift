/// Encodes an `Encodable` value straight to compact UTF-8 JSON: the bytes
/// `JSONWriter.bytes(JSONValueEncoder().encode(value))` gives, without building the tree first
/// (the tree and its writing were 8 % of a retrieved customer's CPU, 13 % of an elements session's).
///
/// Writing as it goes asks the value to encode in order: each container finished before its
/// parent writes again, no key twice, one value per place. Synthesized and Purse's own
/// `encode(to:)` do so. A value that does not is encoded through the tree instead, so the
/// output is always the tree's.
public struct JSONBytesEncoder {
    public init() {}

    public func encode(_ value: some Encodable) throws -> [UInt8] {
        if let bytes = try streamed(value) { return bytes }
        return JSONWriter.bytes(try JSONValueEncoder().encode(value))
    }

    /// The bytes written as the value encodes, or nil when it encodes out of order.
    func streamed(_ value: some Encodable) throws -> [UInt8]? {
        let sink = JSONSink()
        do {
            try sink.writeValue(value, codingPath: [])
        } catch is JSONSink.OutOfOrder {
            return nil
        }
        return sink.isOutOfOrder ? nil : sink.output
    }
}

/// The bytes written so far and the containers still open.
final class JSONSink {
    struct OutOfOrder: Error {}

    private struct OpenContainer {
        let serial: Int
        let isObject: Bool
        /// The place (see ``Slot``) the container fills, to hand it back to a second request.
        let slot: Int
        var isEmpty = true
        var keys: [String] = []
    }

    /// Where one value goes: the top, after an object's key, or an array's next element.
    struct Slot {
        let serial: Int
        /// How many containers were open when the place was made: its value's containers sit above.
        let depth: Int
    }

    var output: [UInt8] = []
    /// Set where the Encoder API cannot throw; the caller then uses the tree.
    var isOutOfOrder = false
    private var open: [OpenContainer] = []
    /// The place made last, until a value fills it.
    private var pending: Int?
    private var lastSerial = 0

    init() {
        output.reserveCapacity(512)
    }

    private func nextSerial() -> Int {
        lastSerial += 1
        return lastSerial
    }

    // MARK: Places and containers

    func makeSlot() -> Slot {
        let slot = Slot(serial: nextSerial(), depth: open.count)
        pending = slot.serial
        return slot
    }

    /// Closes what the slot's value left open; a value that wrote nothing is `{}`, as in the tree.
    func endSlot(_ slot: Slot) {
        if pending == slot.serial {
            output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
            pending = nil
        }
        close(above: slot.depth)
    }

    /// Claims the slot for a value about to be written in it.
    func fill(_ slot: Slot) throws {
        guard pending == slot.serial else { throw OutOfOrder() }
        pending = nil
    }

    /// Opens an object or array in `slot`, or finds the one already opened there.
    func openContainer(in slot: Slot, isObject: Bool) -> Int {
        if pending == slot.serial {
            pending = nil
            let serial = nextSerial()
            open.append(OpenContainer(serial: serial, isObject: isObject, slot: slot.serial))
            output.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            return serial
        }
        // A second `container(keyedBy:)` on one encoder continues the first container.
        if let index = open.lastIndex(where: { $0.slot == slot.serial }), open[index].isObject == isObject,
            pending == nil
        {
            close(above: index + 1)
            return open[index].serial
        }
        isOutOfOrder = true
        return -1
    }

    /// Makes `serial` the innermost open container before it is written to, closing those inside it.
    func enter(_ serial: Int) throws {
        guard pending == nil, let index = open.lastIndex(where: { $0.serial == serial }) else { throw OutOfOrder() }
        close(above: index + 1)
    }

    /// Writes the separator and key of an object's next entry.
    func writeKey(_ key: String, in serial: Int) throws {
        try enter(serial)
        let index = open.count - 1
        if open[index].keys.contains(key) { throw OutOfOrder() }
        open[index].keys.append(key)
        if open[index].isEmpty {
            open[index].isEmpty = false
        } else {
            output.append(UInt8(ascii: ","))
        }
        JSONWriter.writeString(key, to: &output)
        output.append(UInt8(ascii: ":"))
    }

    /// Writes the separator before an array's next element.
    func writeElementSeparator(in serial: Int) throws {
        try enter(serial)
        let index = open.count - 1
        if open[index].isEmpty {
            open[index].isEmpty = false
        } else {
            output.append(UInt8(ascii: ","))
        }
    }

    private func close(above depth: Int) {
        while open.count > depth {
            output.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    // MARK: Values

    func write(_ value: JSONValue) {
        JSONWriter.write(value, to: &output)
    }

    /// Writes `value` in a new place here: scalars and ready JSON at once, others through their
    /// `encode(to:)`.
    func writeValue<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws {
        if let json = ValueEncoder.scalar(value) {
            write(json)
            return
        }
        let slot = makeSlot()
        try value.encode(to: SlotEncoder(sink: self, slot: slot, codingPath: codingPath))
        if isOutOfOrder { throw OutOfOrder() }
        endSlot(slot)
    }
}

/// The encoder a value's `encode(to:)` writes its one place through.
private struct SlotEncoder: Encoder {
    let sink: JSONSink
    let slot: JSONSink.Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        let serial = sink.openContainer(in: slot, isObject: true)
        return KeyedEncodingContainer(StreamingKeyedContainer<Key>(sink: sink, serial: serial, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        StreamingUnkeyedContainer(sink: sink, serial: sink.openContainer(in: slot, isObject: false), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamingSingleValueContainer(sink: sink, slot: slot, codingPath: codingPath)
    }
}

private struct StreamingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: JSONSink
    let serial: Int
    let codingPath: [any CodingKey]

    private func write(_ value: JSONValue, forKey key: Key) throws {
        try sink.writeKey(key.stringValue, in: serial)
        sink.write(value)
    }

    mutating func encodeNil(forKey key: Key) throws { try write(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try write(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try write(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try write(.double(value), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try write(.double(Double(value)), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try write(.int(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try write(.int(Int(value)), forKey: key) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try sink.writeKey(key.stringValue, in: serial)
        try sink.writeValue(value, codingPath: codingPath + [key])
    }

    // A nil optional is written as null, as JSONValueEncoder writes it.
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
        let nested = StreamingKeyedContainer<NestedKey>(
            sink: sink, serial: nestedSlot(forKey: key, isObject: true), codingPath: codingPath + [key]
        )
        return KeyedEncodingContainer(nested)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        StreamingUnkeyedContainer(sink: sink, serial: nestedSlot(forKey: key, isObject: false), codingPath: codingPath + [key])
    }

    /// A container under `key`, closed when this one is next written to (or at the end).
    private func nestedSlot(forKey key: Key, isObject: Bool) -> Int {
        do {
            try sink.writeKey(key.stringValue, in: serial)
        } catch {
            sink.isOutOfOrder = true
            return -1
        }
        return sink.openContainer(in: sink.makeSlot(), isObject: isObject)
    }

    // Where the tree nests an encoder under a key whose end nothing marks: the tree does it.
    mutating func superEncoder() -> any Encoder { outOfOrderEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { outOfOrderEncoder() }

    private func outOfOrderEncoder() -> any Encoder {
        sink.isOutOfOrder = true
        return SlotEncoder(sink: sink, slot: JSONSink.Slot(serial: -1, depth: 0), codingPath: codingPath)
    }
}

private struct StreamingUnkeyedContainer: UnkeyedEncodingContainer {
    let sink: JSONSink
    let serial: Int
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(sink: JSONSink, serial: Int, codingPath: [any CodingKey]) {
        self.sink = sink
        self.serial = serial
        self.codingPath = codingPath
    }

    private mutating func append(_ value: JSONValue) throws {
        try sink.writeElementSeparator(in: serial)
        sink.write(value)
        count += 1
    }

    mutating func encodeNil() throws { try append(.null) }
    mutating func encode(_ value: Bool) throws { try append(.bool(value)) }
    mutating func encode(_ value: String) throws { try append(.string(value)) }
    mutating func encode(_ value: Double) throws { try append(.double(value)) }
    mutating func encode(_ value: Int) throws { try append(.int(value)) }

    mutating func encode(_ value: some Encodable) throws {
        try sink.writeElementSeparator(in: serial)
        try sink.writeValue(value, codingPath: codingPath)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(sink: sink, serial: nestedSlot(isObject: true), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        StreamingUnkeyedContainer(sink: sink, serial: nestedSlot(isObject: false), codingPath: codingPath)
    }

    private mutating func nestedSlot(isObject: Bool) -> Int {
        do {
            try sink.writeElementSeparator(in: serial)
        } catch {
            sink.isOutOfOrder = true
            return -1
        }
        count += 1
        return sink.openContainer(in: sink.makeSlot(), isObject: isObject)
    }

    mutating func superEncoder() -> any Encoder {
        sink.isOutOfOrder = true
        return SlotEncoder(sink: sink, slot: JSONSink.Slot(serial: -1, depth: 0), codingPath: codingPath)
    }
}

private struct StreamingSingleValueContainer: SingleValueEncodingContainer {
    let sink: JSONSink
    let slot: JSONSink.Slot
    let codingPath: [any CodingKey]

    private func write(_ value: JSONValue) throws {
        try sink.fill(slot)
        sink.write(value)
    }

    mutating func encodeNil() throws { try write(.null) }
    mutating func encode(_ value: Bool) throws { try write(.bool(value)) }
    mutating func encode(_ value: String) throws { try write(.string(value)) }
    mutating func encode(_ value: Double) throws { try write(.double(value)) }
    mutating func encode(_ value: Float) throws { try write(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { try write(.int(value)) }
    mutating func encode(_ value: Int8) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: UInt) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: UInt8) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { try write(.int(Int(value))) }
    mutating func encode(_ value: UInt64) throws { try write(.int(Int(value))) }

    /// The value takes this same place, as in the tree.
    mutating func encode(_ value: some Encodable) throws {
        if let json = ValueEncoder.scalar(value) { return try write(json) }
        try value.encode(to: SlotEncoder(sink: sink, slot: slot, codingPath: codingPath))
    }
}
