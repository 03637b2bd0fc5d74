import PurseCore
import Testing

@testable import PurseParameters

// MARK: - Helpers

/// Parses a body written out the way a client writes it.
private func parse(_ body: String) throws -> ParamObject {
    try FormParser.parse(Array(body.utf8))
}

private func text(_ value: String) -> ParamValue { .string(value) }

private func hash(_ entries: KeyValuePairs<String, ParamValue>) -> ParamValue {
    .object(ParamObject(entries.map { ($0.key, $0.value) }))
}

/// Parses `body` expecting an invalid-request refusal, and returns it for the caller to check.
@discardableResult
private func refusal(of body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> PurseError? {
    let error = #expect(throws: PurseError.self, sourceLocation: sourceLocation) { try FormParser.parse(body) }
    #expect(error?.category == .invalidRequest, sourceLocation: sourceLocation)
    return error
}

@discardableResult
private func refusal(of body: String, sourceLocation: SourceLocation = #_sourceLocation) -> PurseError? {
    refusal(of: Array(body.utf8), sourceLocation: sourceLocation)
}

// MARK: - What SDKs send

@Suite("FormParser: bodies as Stripe's SDKs, curl and Rack write them")
struct FormParserEncodingTests {
    @Test func stripePythonIndexedArraysStayObjectsWithIntegerKeys() throws {
        // urllib's urlencode, which stripe-python uses, percent-encodes the brackets.
        let params = try parse("expand%5B0%5D=customer&expand%5B1%5D=invoice_settings.default_payment_method")
        let expand = try #require(params["expand"])
        #expect(expand == hash(["0": text("customer"), "1": text("invoice_settings.default_payment_method")]))
        guard case .object(let indexed) = expand else { throw UnexpectedShape(expand) }
        #expect(indexed.indexedElements == [text("customer"), text("invoice_settings.default_payment_method")])
    }

    @Test func rawBracketIndexedArraysAsStripeNodeAndRubySendThem() throws {
        let params = try parse("expand[0]=customer&expand[1]=invoice_settings.default_payment_method")
        #expect(params["expand"] == hash(["0": text("customer"), "1": text("invoice_settings.default_payment_method")]))
    }

    @Test func stripePythonNestedHashesBooleansAndIntegers() throws {
        let body =
            "metadata%5Border_id%5D=6735&address%5Bline1%5D=1+Main+St&address%5Bcity%5D=Berlin"
            + "&livemode=false&limit=3&confirm=true"
        let params = try parse(body)
        #expect(params.keys == ["metadata", "address", "livemode", "limit", "confirm"])
        #expect(params["metadata"] == hash(["order_id": text("6735")]))
        #expect(params["address"] == hash(["line1": text("1 Main St"), "city": text("Berlin")]))
        // Scalars stay text; the typed decoder reads them as the parameter's type.
        #expect(params["livemode"] == text("false"))
        #expect(params["confirm"] == text("true"))
        #expect(params["limit"] == text("3"))
    }

    @Test func stripeIOSPercentEncodedBracketsNestThreeDeep() throws {
        let params = try parse("billing_details%5Baddress%5D%5Bcity%5D=Berlin&type=card")
        #expect(params["billing_details"] == hash(["address": hash(["city": text("Berlin")])]))
        #expect(params["type"] == text("card"))
    }

    @Test func lowercaseAndMixedBracketEncodingsMeanTheSame() throws {
        let expected = try parse("a[b][c]=1")
        #expect(try parse("a%5bb%5d%5Bc%5D=1") == expected)
        #expect(try parse("a[b%5D%5bc]=1") == expected)
    }

    @Test func curlEmptyBracketsBuildAnArray() throws {
        let params = try parse("expand[]=a&expand[]=b")
        #expect(params["expand"] == .array([text("a"), text("b")]))
    }

    @Test func indexedArraysOfHashes() throws {
        let params = try parse("items[0][price]=x&items[0][quantity]=2&items[1][price]=y")
        #expect(
            params["items"]
                == hash([
                    "0": hash(["price": text("x"), "quantity": text("2")]),
                    "1": hash(["price": text("y")]),
                ]))
    }

    @Test func rackArraysOfHashesStartANewElementOnARepeatedKey() throws {
        let params = try parse("items[][price]=x&items[][quantity]=2&items[][price]=y&items[][quantity]=3")
        #expect(
            params["items"]
                == .array([
                    hash(["price": text("x"), "quantity": text("2")]),
                    hash(["price": text("y"), "quantity": text("3")]),
                ]))
    }

    @Test func rackArraysOfHashesMergeDifferentNestedKeysIntoOneElement() throws {
        // Rack starts a new element only when the full nested key is already present.
        let params = try parse(
            "items[][price_data][currency]=usd&items[][price_data][unit_amount]=100&items[][quantity]=1"
        )
        #expect(
            params["items"]
                == .array([
                    hash([
                        "price_data": hash(["currency": text("usd"), "unit_amount": text("100")]),
                        "quantity": text("1"),
                    ])
                ]))
    }

    @Test func rackArraysInsideArraysOfHashesExtendTheLastElement() throws {
        // Rack never counts a child key holding `[]` as repeated, so `tags[]` keeps appending.
        let params = try parse(
            "items[][name]=a&items[][tags][]=x&items[][tags][]=y&items[][name]=b&items[][tags][]=z"
        )
        #expect(
            params["items"]
                == .array([
                    hash(["name": text("a"), "tags": .array([text("x"), text("y")])]),
                    hash(["name": text("b"), "tags": .array([text("z")])]),
                ]))
    }

    @Test(arguments: ["name=Jenny+Rosen", "name=Jenny%20Rosen", "name=Jenny%20Rosen&"])
    func plusAndPercentTwentyAreSpaces(body: String) throws {
        #expect(try parse(body)["name"] == text("Jenny Rosen"))
    }

    @Test func anEncodedPlusStaysAPlus() throws {
        #expect(try parse("phone=%2B49+30+123")["phone"] == text("+49 30 123"))
    }

    @Test func unicodeValuesAndNames() throws {
        let params = try parse("name=Zo%C3%AB&metadata[caf%C3%A9]=%E2%98%95&city=K%C3%B6ln")
        #expect(params["name"] == text("Zoë"))
        #expect(params["metadata"] == hash(["café": text("☕")]))
        #expect(params["city"] == text("Köln"))
    }

    @Test func rawUTF8BytesAreAccepted() throws {
        #expect(try parse("name=Zoë 🙂")["name"] == text("Zoë 🙂"))
    }

    @Test func anEmptyValueIsTheEmptyString() throws {
        let params = try parse("email=&name=Jo")
        let email = try #require(params["email"])
        #expect(email == text(""))
        #expect(email.isEmpty)
        #expect(params["name"]?.isEmpty == false)
    }

    @Test func aKeyWithoutAnEqualsSignIsEmpty() throws {
        let params = try parse("description&name=Jo&metadata[k]")
        #expect(params["description"] == text(""))
        #expect(params["metadata"] == hash(["k": text("")]))
        #expect(params["name"] == text("Jo"))
    }

    @Test func aRepeatedScalarKeyKeepsTheLastValueInItsFirstPlace() throws {
        let params = try parse("name=first&email=e&name=second")
        #expect(params.keys == ["name", "email"])
        #expect(params["name"] == text("second"))
    }

    @Test func onlyTheFirstEqualsSignSplits() throws {
        #expect(try parse("a=b=c")["a"] == text("b=c"))
    }

    @Test func encodedSeparatorsInsideValuesAreData() throws {
        let params = try parse("q=a%26b%3Dc&brackets=%5Bx%5D&raw=[y]")
        #expect(params["q"] == text("a&b=c"))
        #expect(params["brackets"] == text("[x]"))
        #expect(params["raw"] == text("[y]"))
    }

    @Test func emptyPairsAreSkipped() throws {
        let params = try parse("&&a=1&&b=2&")
        #expect(params == ParamObject([("a", text("1")), ("b", text("2"))]))
    }

    @Test(arguments: ["a=1&=orphan", "=", "=&a=1"])
    func namelessPairsAreRefused(body: String) {
        refusal(of: body)
    }

    @Test func anEmptyBodyIsNoParameters() throws {
        #expect(try parse("").isEmpty)
    }

    @Test func keysKeepTheirArrivalOrder() throws {
        #expect(try parse("zeta=1&alpha=2&mid[b]=3&mid[a]=4").keys == ["zeta", "alpha", "mid"])
        #expect(try parse("mid[b]=3&mid[a]=4")["mid"] == hash(["b": text("3"), "a": text("4")]))
    }

    /// Brackets are bytes, as Rack reads them: a combining mark after one does not hide it.
    @Test func bracketsAreFoundBesideCombiningMarks() throws {
        #expect(try parse("a[%CC%81]=1")["a"] == hash(["\u{301}": text("1")]))
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let key = "a" + String(repeating: "[b]", count: FormParser.maximumDepth - 1)
        var expected = text("deep")
        for _ in 1..<FormParser.maximumDepth { expected = hash(["b": expected]) }
        #expect(try parse(key + "=deep")["a"] == expected)
    }

    @Test func exactlyTheMaximumNumberOfPairsIsAccepted() throws {
        let body = (0..<FormParser.maximumPairs).map { "k\($0)=\($0)" }.joined(separator: "&")
        let params = try parse(body)
        #expect(params.entries.count == FormParser.maximumPairs)
        #expect(params["k9999"] == text("9999"))
    }

    @Test func aLongCurlArrayKeepsEveryElement() throws {
        let body = Array(repeating: "a[]=x", count: FormParser.maximumPairs).joined(separator: "&")
        guard case .array(let elements) = try parse(body)["a"] else { throw UnexpectedShape(nil) }
        #expect(elements.count == FormParser.maximumPairs)
    }
}

// MARK: - Malformed input

@Suite("FormParser: malformed input is a PurseError, never a crash")
struct FormParserMalformedInputTests {
    @Test(arguments: [
        ("a[b=1", "a[b"),
        ("a]=1", "a]"),
        ("[a]=1", "[a]"),
        ("a[b]c=1", "a[b]c"),
        ("a[b]]=1", "a[b]]"),
        ("a[[b]]=1", "a[[b]]"),
        ("a[=1", "a["),
        ("[]=1", "[]"),
        ("a%5Bb=1", "a[b"),
        ("a]%CC%81=1", "a]\u{301}"),
    ])
    func unbalancedBracketsNameTheParameter(body: String, param: String) {
        #expect(refusal(of: body)?.param == param)
    }

    @Test(arguments: ["a=%ZZ", "a=%4", "a=%", "a=%%41", "a=%G1", "%ZZ=1", "a%4=1"])
    func invalidPercentEncoding(body: String) {
        refusal(of: body)
    }

    @Test(arguments: [
        "a=%C3%28",  // a lead byte followed by a non-continuation byte
        "a=%FF",
        "a=%C0%80",  // an overlong NUL
        "a=%ED%A0%80",  // a UTF-16 surrogate encoded as UTF-8
        "a=%E2%82",  // truncated
        "name%FF=1",
    ])
    func invalidUTF8(body: String) {
        refusal(of: body)
    }

    @Test func rawInvalidUTF8Bytes() {
        refusal(of: Array("a=".utf8) + [0xFF, 0xFE])
        refusal(of: [0xC3] + Array("=1".utf8))
    }

    @Test(arguments: ["a=%00", "a%00=1", "a[%00]=1", "a=x%00y"])
    func encodedNULs(body: String) {
        refusal(of: body)
    }

    @Test func rawNULBytes() {
        refusal(of: Array("a=".utf8) + [0x00])
    }

    @Test func nestingDeeperThanTheLimitNamesTheTopParameter() {
        let key = "card" + String(repeating: "[x]", count: FormParser.maximumDepth)
        #expect(refusal(of: key + "=1")?.param == "card")
        let curlKey = "card" + String(repeating: "[]", count: FormParser.maximumDepth)
        #expect(refusal(of: curlKey + "=1")?.param == "card")
    }

    @Test func moreThanTheMaximumNumberOfPairs() {
        let body = Array(repeating: "a=1", count: FormParser.maximumPairs + 1).joined(separator: "&")
        refusal(of: body)
    }

    @Test func emptyPairsDoNotCountTowardsTheLimit() throws {
        let body = Array(repeating: "a=1", count: FormParser.maximumPairs).joined(separator: "&&")
        #expect(try parse(body)["a"] == text("1"))
    }

    @Test(arguments: [
        ("a=1&a[b]=2", "a"),
        ("a[b]=2&a=1", "a"),
        ("a=&a[b]=2", "a"),
        ("a[]=1&a[b]=2", "a"),
        ("a[b]=2&a[]=1", "a"),
        ("a=1&a[]=2", "a"),
        ("a[]=1&a=2", "a"),
        ("a[b]=1&a[b][c]=2", "a[b]"),
        ("a[b][c]=2&a[b]=1", "a[b]"),
        ("x[y][z]=1&x[y][z][]=2", "x[y][z]"),
    ])
    func scalarHashAndArrayConflictsNameTheParameter(body: String, param: String) {
        #expect(refusal(of: body)?.param == param)
    }
}

/// Thrown when a parsed value has another shape than the test expects.
private struct UnexpectedShape: Error {
    let value: ParamValue?
    init(_ value: ParamValue?) { self.value = value }
}
