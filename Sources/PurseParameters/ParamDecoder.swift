import PurseCore

/// Decodes a ``ParamValue`` tree into a typed parameters struct, with Stripe's rules and errors:
/// text scalars read as the property's type, an empty value means "unset" (or "clear" for
/// ``ClearableParameter`` types such as `Patch`), arrays may arrive indexed (`a[0]`), and a
/// parameter the struct does not read is refused as unknown, named in bracket form, unless the
/// request's ``ParameterPolicy`` ignores it.
public struct ParamDecoder {
    var policy: ParameterPolicy

    /// A strict decoder, as the secret key gets.
    public init() { self.policy = .strict }

    package init(policy: ParameterPolicy) { self.policy = policy }

    /// What a decoding gives: the parameters, and those the policy let through unread, in
    /// bracket form (`payment_method_data[muid]`).
    package struct Decoded<Params> {
        package var params: Params
        package var ignored: [String]
    }

    public func decode<Params: Decodable>(_: Params.Type, from parameters: ParamObject) throws -> Params {
        try decodeReportingIgnored(Params.self, from: parameters).params
    }

    package func decodeReportingIgnored<Params: Decodable>(_: Params.Type, from parameters: ParamObject) throws -> Decoded<Params> {
        let visits = Visits()
        let decoder = TreeDecoder(value: .object(parameters), codingPath: [], visits: visits)
        let result: Params
        do {
            result = try Params(from: decoder)
        } catch let error as DecodingError {
            throw Self.purseError(for: error)
        }
        var ignored: [String] = []
        try collectUnvisited(in: parameters, path: [], visits: visits, ignored: &ignored)
        return Decoded(params: result, ignored: ignored)
    }

    /// Walks the parameters in arrival order: the first one decoding never looked at is refused
    /// unless the policy ignores it (and everything nested under it).
    private func collectUnvisited(in object: ParamObject, path: [String], visits: Visits, ignored: inout [String]) throws {
        for entry in object.entries {
            let childPath = path + [entry.key]
            guard visits.paths.contains(childPath) else {
                guard policy.ignores(childPath) else { throw PurseError.unknownParameter(ParameterPath.bracketed(childPath)) }
                ignored.append(ParameterPath.bracketed(childPath))
                continue
            }
            try collectUnvisited(in: entry.value, path: childPath, visits: visits, ignored: &ignored)
        }
    }

    private func collectUnvisited(in value: ParamValue, path: [String], visits: Visits, ignored: inout [String]) throws {
        switch value {
        case .string:
            return
        case .object(let object):
            // An object read as an array (`a[0]=`) had its elements visited by index.
            try collectUnvisited(in: object, path: path, visits: visits, ignored: &ignored)
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                try collectUnvisited(in: element, path: path + [String(index)], visits: visits, ignored: &ignored)
            }
        }
    }

    /// DecodingErrors come from types' own `init(from:)` (a failed `RawRepresentable`, say).
    static func purseError(for error: DecodingError) -> PurseError {
        switch error {
        case .keyNotFound(let key, let context):
            return .missingParameter(ParameterPath.bracketed(context.codingPath + [key]))
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let param = ParameterPath.bracketed(context.codingPath)
            return .invalidParameter(param, "Invalid value for \(param).")
        @unknown default:
            return PurseError(.invalidRequest, message: "Invalid parameters.")
        }
    }
}

/// The parameter paths decoding looked at.
final class Visits {
    var paths: Set<[String]> = []
}

/// The Decoder over one node of the tree.
struct TreeDecoder: Decoder {
    let value: ParamValue
    let codingPath: [any CodingKey]
    let visits: Visits
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var param: String { ParameterPath.bracketed(codingPath) }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let object):
            return KeyedDecodingContainer(TreeKeyedContainer<Key>(object: object, decoder: self))
        case .string(""):
            return KeyedDecodingContainer(TreeKeyedContainer<Key>(object: ParamObject(), decoder: self))
        default:
            throw PurseError.invalidParameter(param, "Invalid \(param): expected a hash (\(param)[key]=value).")
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let elements):
            return TreeUnkeyedContainer(elements: elements, indexKeys: nil, decoder: self)
        case .object(let object):
            guard let elements = object.indexedElements else {
                throw PurseError.invalidParameter(param, "Invalid \(param): expected an array (\(param)[]=value).")
            }
            let indexKeys = object.entries.compactMap { Int($0.key) }.sorted().map(String.init)
            return TreeUnkeyedContainer(elements: elements, indexKeys: indexKeys, decoder: self)
        case .string(""):
            return TreeUnkeyedContainer(elements: [], indexKeys: nil, decoder: self)
        case .string:
            throw PurseError.invalidParameter(param, "Invalid \(param): expected an array (\(param)[]=value).")
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TreeSingleValueContainer(decoder: self)
    }

    func child(_ value: ParamValue, key: any CodingKey) -> TreeDecoder {
        TreeDecoder(value: value, codingPath: codingPath + [key], visits: visits)
    }

    // MARK: Scalars

    func scalar() throws -> String {
        guard case .string(let text) = value else {
            throw PurseError.invalidParameter(param, "Invalid \(param): expected a single value, not a hash or an array.")
        }
        return text
    }

    func decodeString() throws -> String { try scalar() }

    func decodeBool() throws -> Bool {
        switch try scalar() {
        case "true": return true
        case "false": return false
        case let other: throw PurseError.invalidParameter(param, "Invalid boolean: \(other)")
        }
    }

    func decodeInteger<Integer: FixedWidthInteger>(_: Integer.Type) throws -> Integer {
        let text = try scalar()
        guard let number = Integer(text) else {
            throw PurseError.invalidParameter(param, "Invalid integer: \(text)", code: "parameter_invalid_integer")
        }
        return number
    }

    func decodeDouble() throws -> Double {
        let text = try scalar()
        guard let number = Double(text), number.isFinite else {
            throw PurseError.invalidParameter(param, "Invalid decimal: \(text)")
        }
        return number
    }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        switch type {
        case is String.Type: return try decodeString() as! Value
        case is Bool.Type: return try decodeBool() as! Value
        case is Int.Type: return try decodeInteger(Int.self) as! Value
        case is Int64.Type: return try decodeInteger(Int64.self) as! Value
        case is Int32.Type: return try decodeInteger(Int32.self) as! Value
        case is Double.Type: return try decodeDouble() as! Value
        default: return try Value(from: self)
        }
    }
}

struct TreeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: ParamObject
    let decoder: TreeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    /// The value sent for `key`, recorded as read. Only parameters that arrived are checked for
    /// being unknown, so a key that is absent needs no record (most of a struct's keys are).
    private func lookup(_ key: Key) -> ParamValue? {
        guard let value = object[key.stringValue] else { return nil }
        decoder.visits.paths.insert((codingPath + [key]).map(\.stringValue))
        return value
    }

    func contains(_ key: Key) -> Bool {
        lookup(key) != nil
    }

    private func childDecoder(_ key: Key) throws -> TreeDecoder {
        guard let value = lookup(key) else {
            throw PurseError.missingParameter(ParameterPath.bracketed(codingPath + [key]))
        }
        return decoder.child(value, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        lookup(key)?.isEmpty ?? true
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        let child = try childDecoder(key)
        if child.value.isEmpty, !(Value.self is any ClearableParameter.Type) {
            throw PurseError.missingParameter(child.param)
        }
        return try child.decode(type)
    }

    /// Absent is nil, and so is empty unless the type gives "empty" a meaning of its own.
    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let value = lookup(key) else { return nil }
        if value.isEmpty, !(Value.self is any ClearableParameter.Type) { return nil }
        return try decoder.child(value, key: key).decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try childDecoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try childDecoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder { try childDecoder(key) }
}

struct TreeUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [ParamValue]
    /// The keys elements arrived under (`a[3]`), for their paths; nil for `a[]` arrays.
    let indexKeys: [String]?
    let decoder: TreeDecoder
    var currentIndex = 0

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func nextDecoder() throws -> TreeDecoder {
        guard !isAtEnd else {
            throw PurseError.invalidParameter(decoder.param, "Invalid \(decoder.param): too few elements.")
        }
        let key = AnyIndexKey(indexKeys?[currentIndex] ?? String(currentIndex))
        decoder.visits.paths.insert((codingPath + [key]).map(\.stringValue))
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], key: key)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return true }
        if elements[currentIndex].isEmpty {
            _ = try nextDecoder()
            return true
        }
        return false
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try nextDecoder().decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try nextDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try nextDecoder() }
}

struct TreeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isEmpty }
    func decode(_: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_: Float.Type) throws -> Float { Float(try decoder.decodeDouble()) }
    func decode(_: Int.Type) throws -> Int { try decoder.decodeInteger(Int.self) }
    func decode(_: Int8.Type) throws -> Int8 { try decoder.decodeInteger(Int8.self) }
    func decode(_: Int16.Type) throws -> Int16 { try decoder.decodeInteger(Int16.self) }
    func decode(_: Int32.Type) throws -> Int32 { try decoder.decodeInteger(Int32.self) }
    func decode(_: Int64.Type) throws -> Int64 { try decoder.decodeInteger(Int64.self) }
    func decode(_: UInt.Type) throws -> UInt { try decoder.decodeInteger(UInt.self) }
    func decode(_: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(UInt8.self) }
    func decode(_: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(UInt16.self) }
    func decode(_: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(UInt32.self) }
    func decode(_: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(UInt64.self) }
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try decoder.decode(type) }
}

/// A key for an array element's position.
struct AnyIndexKey: CodingKey {
    let stringValue: String
    var intValue: Int? { Int(stringValue) }

    init(_ stringValue: String) { self.stringValue = stringValue }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = String(intValue) }
}
