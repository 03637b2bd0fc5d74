import Foundation
import PurseModels
import Testing

// MARK: - Helpers

/// Writes `value` and reads it back.
private func roundTrip(_ value: JSONValue) throws -> JSONValue {
    try JSONReader.parse(JSONWriter.bytes(value))
}

/// Reads `bytes` expecting the reader to refuse them.
private func expectRefused(
    _ bytes: [UInt8],
    maximumDepth: Int = JSONReader.defaultMaximumDepth,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(throws: JSONReader.ParseError.self, sourceLocation: sourceLocation) {
        try JSONReader.parse(bytes, maximumDepth: maximumDepth)
    }
}

private func encodedText(_ value: some Encodable) throws -> String {
    JSONWriter.string(try JSONValueEncoder().encode(value))
}

/// `[[...[1]...]]` with `depth` arrays.
private func nestedArrays(depth: Int) -> String {
    String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
}

// MARK: - Reader and writer

@Suite("JSONWriter and JSONReader")
struct JSONReaderWriterTests {
    static let awkwardStrings: [String] = [
        "",
        "plain",
        "quote \" backslash \\ slash /",
        "newline\n return\r tab\t backspace\u{08} formfeed\u{0C}",
        String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self),
        "delete \u{7F}",
        "Zoë, Köln, 日本語, Ελληνικά",
        "emoji 👩‍💻 🇩🇪",
        "edges \u{80} \u{7FF} \u{800} \u{FFFF} \u{10000} \u{10FFFF}",
        "line separators \u{2028}\u{2029}",
        "json in json {\"a\":[1,2]}",
    ]

    @Test(arguments: awkwardStrings)
    func stringsRoundTrip(text: String) throws {
        #expect(try roundTrip(.string(text)) == .string(text))
        #expect(try roundTrip(["key \(text)": .string(text)]) == ["key \(text)": .string(text)])
    }

    @Test func controlCharactersAreEscaped() {
        #expect(JSONWriter.string("a\nb\r\t\u{01}\u{1F}\"\\") == #""a\nb\r\t\u0001\u001f\"\\""#)
        let allControls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        #expect(JSONWriter.bytes(.string(allControls)).allSatisfy { $0 >= 0x20 })
    }

    @Test func aDocumentRoundTripsWithItsKeyOrder() throws {
        let document: JSONValue = [
            "zeta": 1,
            "alpha": [true, false, nil, "x", ["nested": []]],
            "numbers": [.int(Int.max), .int(Int.min), .double(1.5), .double(-0.25), .double(1e300), .double(0.1)],
            "empty": [:],
        ]
        let back = try roundTrip(document)
        #expect(back == document)
        #expect(back.objectValue?.keys == ["zeta", "alpha", "numbers", "empty"])
    }

    @Test func writingIsCompactAndOrdered() {
        let document: JSONValue = ["b": [1, 2], "a": ["x": nil], "c": "d"]
        #expect(JSONWriter.string(document) == #"{"b":[1,2],"a":{"x":null},"c":"d"}"#)
    }

    @Test func wholeDoublesAreWrittenAsIntegersAndNonFiniteAsNull() {
        #expect(JSONWriter.string(.double(2.0)) == "2")
        #expect(JSONWriter.string(.double(.infinity)) == "null")
        #expect(JSONWriter.string(.double(.nan)) == "null")
    }

    @Test func escapesAndSurrogatePairsAreRead() throws {
        #expect(try JSONReader.parse(#""\u00e9\u00E9 \ud83d\ude00 \/ \b\f""#) == .string("éé 😀 / \u{08}\u{0C}"))
        #expect(try JSONReader.parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func numbersAreReadAsIntegersOrDoubles() throws {
        #expect(try JSONReader.parse("-0") == .int(0))
        #expect(try JSONReader.parse("42") == .int(42))
        #expect(try JSONReader.parse("1E5") == .double(100_000))
        #expect(try JSONReader.parse("1.5e-3") == .double(0.0015))
        #expect(try JSONReader.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    }

    @Test func whitespaceAroundTokensIsAllowed() throws {
        #expect(try JSONReader.parse(" \n{ \"a\" :\t[ 1 , 2 ] }\r\n ") == ["a": [1, 2]])
    }

    @Test func aRepeatedKeyKeepsTheLastValue() throws {
        #expect(try JSONReader.parse(#"{"a":1,"b":2,"a":3}"#) == ["a": 3, "b": 2])
    }

    @Test(arguments: [
        "[1,]", #"{"a":1,}"#, "[,1]", "{,}", "[1 2]", #"{"a" 1}"#, #"{"a":1 "b":2}"#, "{a:1}", "{'a':1}",
        #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#,
        "01", "-01", "00", "1.", ".5", "1e", "1e+", "+1", "-", "0x10", "1e400",
        "NaN", "Infinity", "-Infinity", "nul", "tru", "True", "undefined",
        "\"tab\there\"", "\"new\nline\"", #""\x41""#, #""\u12""#, #""\u12G4""#, #""abc"#, #""\"#,
        "", "   ", "\u{0C}1", "1 2", #"{"a":1}}"#, "[1]]", "[", "{", #"{"a":"#,
    ])
    func invalidDocumentsAreRefused(json: String) {
        expectRefused(Array(json.utf8))
    }

    @Test(
        arguments: [
            [0x22, 0xFF, 0x22],
            [0x22, 0xC3, 0x28, 0x22],  // a lead byte followed by a non-continuation byte
            [0x22, 0xC0, 0x80, 0x22],  // an overlong NUL
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // a UTF-16 surrogate encoded as UTF-8
            [0x22, 0xE2, 0x82, 0x22],  // truncated
            [0xFF],
        ] as [[UInt8]])
    func invalidUTF8IsRefused(bytes: [UInt8]) {
        expectRefused(bytes)
    }

    @Test func theDepthLimitCountsArraysAndObjects() throws {
        #expect(try JSONReader.parse(nestedArrays(depth: 3), maximumDepth: 3) != .null)
        expectRefused(Array(nestedArrays(depth: 4).utf8), maximumDepth: 3)
        expectRefused(Array(#"{"a":[{"b":1}]}"#.utf8), maximumDepth: 2)
        #expect(try JSONReader.parse("1", maximumDepth: 0) == 1)
    }

    @Test func theDefaultDepthLimitStopsDeepDocumentsWithoutCrashing() throws {
        _ = try JSONReader.parse(nestedArrays(depth: JSONReader.defaultMaximumDepth))
        expectRefused(Array(nestedArrays(depth: JSONReader.defaultMaximumDepth + 1).utf8))
        expectRefused(Array(String(repeating: "[", count: 100_000).utf8))
    }

    @Test func parseErrorsSayWhere() {
        let error = #expect(throws: JSONReader.ParseError.self) { try JSONReader.parse("[1,]") }
        #expect(error?.offset == 3)
        #expect(error?.description.hasPrefix("Invalid JSON at byte 3") == true)
    }
}

// MARK: - Encoding models

private struct Card: Encodable {
    var brand: String
    var last4: String?
}

private struct Holder: Encodable {
    var zeta: String?
    var alpha: Int
    var card: Card?
    var cards: [Card]
    var fingerprints: [String?]
    var extra: JSONValue
}

@Suite("JSONValueEncoder and the Customer model")
struct JSONValueEncoderTests {
    @Test func nilOptionalsAreWrittenAsNullInDeclarationOrder() throws {
        let holder = Holder(
            zeta: nil, alpha: 1, card: nil, cards: [Card(brand: "visa", last4: nil)], fingerprints: ["f", nil],
            extra: ["kept": nil]
        )
        #expect(
            try encodedText(holder)
                == #"{"zeta":null,"alpha":1,"card":null,"cards":[{"brand":"visa","last4":null}],"#
                + #""fingerprints":["f",null],"extra":{"kept":null}}"#
        )
    }

    @Test func presentOptionalsAreWrittenAsValues() throws {
        let holder = Holder(
            zeta: "z", alpha: 2, card: Card(brand: "amex", last4: "0005"), cards: [], fingerprints: [], extra: 3
        )
        #expect(
            try encodedText(holder)
                == #"{"zeta":"z","alpha":2,"card":{"brand":"amex","last4":"0005"},"#
                + #""cards":[],"fingerprints":[],"extra":3}"#
        )
    }

    @Test func aTopLevelNilIsNull() throws {
        #expect(try JSONValueEncoder().encode(String?.none) == .null)
        #expect(try JSONValueEncoder().encode([Int?]([1, nil])) == [1, nil])
    }

    static let customerKeys = [
        "id", "object", "address", "balance", "created", "currency", "default_source", "delinquent", "description", "discount",
        "email", "invoice_prefix", "invoice_settings", "livemode", "metadata", "name", "next_invoice_sequence",
        "phone", "preferred_locales", "shipping", "tax_exempt", "test_clock",
    ]

    @Test func aBareCustomerCarriesEveryKey() throws {
        let customer = Customer(id: "cus_1", created: 1_700_000_000, invoicePrefix: "ABC123")
        let json = try JSONValueEncoder().encode(customer)
        #expect(json.objectValue?.keys == Self.customerKeys)
        #expect(json["object"] == "customer")
        #expect(json["address"] == .null)
        #expect(json["balance"] == 0)
        #expect(json["created"] == 1_700_000_000)
        #expect(json["delinquent"] == false)
        #expect(json["livemode"] == false)
        #expect(json["metadata"] == [:])
        #expect(json["preferred_locales"] == [])
        #expect(json["tax_exempt"] == "none")
        #expect(json["next_invoice_sequence"] == 1)
        #expect(json["test_clock"] == .null)
        #expect(
            json["invoice_settings"]
                == ["custom_fields": nil, "default_payment_method": nil, "footer": nil, "rendering_options": nil]
        )
    }

    @Test func aFullCustomerNestsAddressShippingAndSortedMetadata() throws {
        let address = Address(city: "Berlin", postalCode: "10115")
        let customer = Customer(
            id: "cus_2", created: 1, address: address, email: "zoë@example.com", invoicePrefix: "P",
            invoiceSettings: InvoiceSettings(defaultPaymentMethod: "pm_1"), metadata: ["b": "2", "a": "1"],
            preferredLocales: ["de", "en"], shipping: Shipping(address: address, name: "Zoë")
        )
        let json = try JSONValueEncoder().encode(customer)
        #expect(json.objectValue?.keys == Self.customerKeys)
        let expectedAddress: JSONValue = [
            "city": "Berlin", "country": nil, "line1": nil, "line2": nil, "postal_code": "10115", "state": nil,
        ]
        #expect(json["address"] == expectedAddress)
        #expect(json["shipping"] == ["address": expectedAddress, "name": "Zoë", "phone": nil])
        #expect(JSONWriter.string(json["metadata"] ?? .null) == #"{"a":"1","b":"2"}"#)
        #expect(json["invoice_settings"]?["default_payment_method"] == "pm_1")
        #expect(json["preferred_locales"] == ["de", "en"])
    }

    @Test func whatTheServerWritesAClientDecodes() throws {
        let customer = Customer(
            id: "cus_3", created: 2, address: Address(line1: "1 Main St"), description: "line\nbreak \"q\"",
            invoicePrefix: "Q", metadata: ["k": "v"], name: "Zoë 🙂"
        )
        let bytes = JSONWriter.bytes(try JSONValueEncoder().encode(customer))
        #expect(try JSONDecoder().decode(Customer.self, from: Data(bytes)) == customer)
    }
}

@Suite("JSONValueDecoder reads what the encoder writes")
struct JSONValueDecoderTests {
    @Test func aCustomerRoundTripsThroughTheStoredForm() throws {
        let customer = Customer(
            id: "cus_4", created: 3, address: Address(city: "Köln", line1: "1 Main St"), description: "tab\there \"q\"",
            invoicePrefix: "R", metadata: ["k": "v", "emoji": "🙂"], name: nil, preferredLocales: ["de"]
        )
        let stored = JSONWriter.bytes(try JSONValueEncoder().encode(customer))
        #expect(try JSONValueDecoder().decode(Customer.self, from: JSONReader.parse(stored)) == customer)
    }

    @Test func numbersConvertAsFoundationDoes() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Int.self, from: .double(12)) == 12)
        #expect(try decoder.decode(Double.self, from: .int(3)) == 3)
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .double(1.5)) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: .int(300)) }
        #expect(try decoder.decode([Int?].self, from: [1, nil, 3]) == [1, nil, 3])
    }

    @Test func aMissingKeyOrAWrongTypeIsADecodingErrorWithItsPath() throws {
        let decoder = JSONValueDecoder()
        #expect(throws: DecodingError.self) { try decoder.decode(Address.self, from: "not an object") }
        do {
            _ = try decoder.decode(Customer.self, from: ["id": "cus_1", "created": "yesterday"])
            Issue.record("decoded a customer with a string for created")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["created"])
        } catch DecodingError.keyNotFound {
            // Also acceptable: which error comes first depends on the order the type decodes in.
        }
    }

    @Test func freeFormJSONIsTakenAsItIs() throws {
        let document: JSONValue = ["a": [1, "two", nil, ["b": true]]]
        #expect(try JSONValueDecoder().decode(JSONValue.self, from: document) == document)
    }
}
