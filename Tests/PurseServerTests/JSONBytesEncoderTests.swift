import TestSupport
import Testing

@testable import PurseModels

/// The tree's bytes, which the streaming encoder must match.
private func treeBytes(_ value: some Encodable) throws -> [UInt8] {
    JSONWriter.bytes(try JSONValueEncoder().encode(value))
}

/// Expects `value` to be written as it encodes (no fallback) and to match the tree byte for byte.
private func expectStreamedLikeTheTree(_ value: some Encodable, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let streamed = try JSONBytesEncoder().streamed(value)
    #expect(streamed != nil, "fell back to the tree", sourceLocation: sourceLocation)
    #expect(
        streamed.map { String(decoding: $0, as: UTF8.self) } == String(decoding: try treeBytes(value), as: UTF8.self),
        sourceLocation: sourceLocation
    )
}

/// Expects `value` to be refused by the streaming path and encoded through the tree.
private func expectTreeFallback(_ value: some Encodable, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(try JSONBytesEncoder().streamed(value) == nil, sourceLocation: sourceLocation)
    #expect(try JSONBytesEncoder().encode(value) == treeBytes(value), sourceLocation: sourceLocation)
}

// MARK: - Values to encode

private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A JSON document that encodes through the containers (a `JSONValue` inside a model is
/// written whole, which would skip them).
private indirect enum Document: Encodable {
    case null, bool(Bool), int(Int), double(Double), string(String)
    case array([Document])
    case object([(String, Document)])

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .int(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .double(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let entries):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in entries { try container.encode(value, forKey: Key(key)) }
        }
    }

    /// A random document up to `depth` levels deep, with keys unique within each object.
    static func random(depth: Int, using generator: inout some RandomNumberGenerator) -> Document {
        let leaves: [Document] = [
            .null, .bool(true), .int(-42), .double(1.5), .double(3), .string("zoë \"q\" \n\u{01}"), .string(""),
        ]
        let pick = Int.random(in: 0..<(depth > 0 ? 9 : 7), using: &generator)
        if pick < 7 { return leaves[pick] }
        let count = Int.random(in: 0...4, using: &generator)
        let children = (0..<count).map { _ in random(depth: depth - 1, using: &generator) }
        if pick == 7 { return .array(children) }
        return .object(children.enumerated().map { ("k\($0.offset)", $0.element) })
    }
}

/// Writes through `nestedContainer` and `nestedUnkeyedContainer`, each finished before the next key.
private struct NestedInOrder: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode("first", forKey: Key("a"))
        var inner = container.nestedContainer(keyedBy: Key.self, forKey: Key("inner"))
        try inner.encode(1, forKey: Key("x"))
        try inner.encodeNil(forKey: Key("y"))
        var list = container.nestedUnkeyedContainer(forKey: Key("list"))
        try list.encode(true)
        var deeper = list.nestedContainer(keyedBy: Key.self)
        try deeper.encode("d", forKey: Key("z"))
        try list.encode(2)
        try container.encode([1, 2], forKey: Key("last"))
        // A second request for the container continues the first.
        var again = encoder.container(keyedBy: Key.self)
        try again.encode(UInt8(7), forKey: Key("again"))
    }
}

/// Encodes nothing: the tree writes `{}`.
private struct Nothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

/// Writes one key twice: the tree keeps the key in its first place with the last value.
private struct RepeatedKey: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: Key("a"))
        try container.encode(2, forKey: Key("b"))
        try container.encode(3, forKey: Key("a"))
    }
}

/// Writes into a nested container after its parent has written again.
private struct LateNestedWrite: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        var inner = container.nestedContainer(keyedBy: Key.self, forKey: Key("inner"))
        try container.encode("after", forKey: Key("b"))
        try inner.encode("late", forKey: Key("x"))
    }
}

/// Uses `superEncoder`, whose end nothing marks.
private struct UsesSuperEncoder: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: Key("a"))
        var parent = container.superEncoder().singleValueContainer()
        try parent.encode("base")
    }
}

/// Writes two single values into one place.
private struct TwoSingleValues: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(1)
        try container.encode(2)
    }
}

/// Writes its own key's value twice, through two single-value containers.
private struct Holder: Encodable {
    var twice = TwoSingleValues()
    var tail = "t"
}

// MARK: - Tests

@Suite("JSONBytesEncoder writes what the tree writes")
struct JSONBytesEncoderTests {
    @Test func customersMatchTheTree() throws {
        try expectStreamedLikeTheTree(Customer(id: "cus_1", created: 1_700_000_000, invoicePrefix: "ABC123"))
        let address = Address(city: "Köln", line1: "1 \"Main\" St\n", postalCode: "50667")
        try expectStreamedLikeTheTree(
            Customer(
                id: "cus_2", created: 1, address: address, description: "tab\there", email: "zoë@example.com",
                invoicePrefix: "P", invoiceSettings: InvoiceSettings(defaultPaymentMethod: "pm_1"),
                metadata: ["b": "2", "a": "1", "emoji": "🙂"], name: "Zoë", preferredLocales: ["de", "en"],
                shipping: Shipping(address: address, name: "Zoë")
            )
        )
    }

    @Test func aPaymentMethodWithOptionalDetailsLeftOutMatchesTheTree() throws {
        let method = PaymentMethod(
            id: "pm_1", allowRedisplay: "always", billingDetails: BillingDetails(name: "Jenny"), created: 5,
            customer: nil, metadata: [:],
            sepaDebit: SepaDebitDetails(bankCode: "3704", branchCode: nil, country: "DE", fingerprint: "f", last4: "3000"),
            type: "sepa_debit"
        )
        try expectStreamedLikeTheTree(method)
        try expectStreamedLikeTheTree([method, method])
    }

    @Test func scalarsOptionalsAndReadyJSONMatchTheTree() throws {
        try expectStreamedLikeTheTree("top \u{2028} level")
        try expectStreamedLikeTheTree(12)
        try expectStreamedLikeTheTree(2.5)
        try expectStreamedLikeTheTree(Float(0.25))
        try expectStreamedLikeTheTree(Double.infinity)
        try expectStreamedLikeTheTree(String?.none)
        try expectStreamedLikeTheTree([Int?]([1, nil]))
        try expectStreamedLikeTheTree(["b": 1, "a": 2] as [String: Int])
        try expectStreamedLikeTheTree(["object": "list", "data": [["id": nil], [], [:]], "n": .double(1.25)] as JSONValue)
    }

    @Test func randomDocumentsMatchTheTree() throws {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<500 {
            try expectStreamedLikeTheTree(Document.random(depth: 4, using: &generator))
        }
    }

    @Test func nestedContainersWrittenInOrderAreStreamed() throws {
        try expectStreamedLikeTheTree(NestedInOrder())
        #expect(
            String(decoding: try JSONBytesEncoder().encode(NestedInOrder()), as: UTF8.self)
                == #"{"a":"first","inner":{"x":1,"y":null},"list":[true,{"z":"d"},2],"last":[1,2],"again":7}"#
        )
    }

    @Test func aValueThatEncodesNothingIsAnEmptyObject() throws {
        try expectStreamedLikeTheTree(Nothing())
        try expectStreamedLikeTheTree([Nothing(), Nothing()])
        #expect(try JSONBytesEncoder().encode([Nothing()]) == Array("[{}]".utf8))
    }

    @Test func valuesEncodedOutOfOrderGoThroughTheTree() throws {
        try expectTreeFallback(RepeatedKey())
        #expect(try JSONBytesEncoder().encode(RepeatedKey()) == Array(#"{"a":3,"b":2}"#.utf8))
        try expectTreeFallback(LateNestedWrite())
        #expect(try JSONBytesEncoder().encode(LateNestedWrite()) == Array(#"{"inner":{"x":"late"},"b":"after"}"#.utf8))
        try expectTreeFallback(UsesSuperEncoder())
        try expectTreeFallback(TwoSingleValues())
        try expectTreeFallback(Holder())
    }
}
