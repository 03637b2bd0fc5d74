import NIOCore
import PurseCore
import PurseModels
import Testing

@testable import PurseParameters

// MARK: - Helpers

/// Parses a form body and decodes it, as a controller does.
private func decode<Params: Decodable>(
    _ type: Params.Type,
    _ body: String,
    policy: ParameterPolicy = .strict
) throws -> Params {
    try ParamDecoder(policy: policy).decode(type, from: FormParser.parse(Array(body.utf8)))
}

/// Decodes `body` expecting an invalid-request refusal, and returns it for the caller to check.
private func refusal<Params: Decodable>(
    _ type: Params.Type,
    _ body: String,
    policy: ParameterPolicy = .strict,
    sourceLocation: SourceLocation = #_sourceLocation
) -> PurseError? {
    let error = #expect(throws: PurseError.self, sourceLocation: sourceLocation) {
        try decode(type, body, policy: policy)
    }
    #expect(error?.category == .invalidRequest, sourceLocation: sourceLocation)
    return error
}

/// Parameters read from a JSON body, as a controller gets them.
private func jsonParameters(_ json: String, contentType: String = "application/json") throws -> ParamObject {
    try RequestParameters.fromBody(ByteBuffer(string: json), contentType: contentType)
}

private func decodeJSON<Params: Decodable>(_ type: Params.Type, _ json: String) throws -> Params {
    try ParamDecoder().decode(type, from: jsonParameters(json))
}

/// A JSON document nested `depth` objects deep: `{"a":{"a":1}}` is 2.
private func nestedJSON(depth: Int) -> String {
    String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
}

// MARK: - Test-only parameter types, for the scalar kinds the real structs do not use yet

private enum Interval: String, ParameterEnum {
    case day, week, month, year
}

/// A plain `RawRepresentable` enum: its synthesized decoding fails with a `DecodingError`.
private enum Color: String, Decodable {
    case red, green
}

private struct Recurring: Decodable {
    var interval: Interval
}

private struct ScalarParameters: Decodable {
    var flag: Bool?
    var count: Int32?
    var amount: Double?
    var interval: Interval?
    var recurring: Recurring?
    var color: Color?
}

private struct LineItem: Decodable, Equatable {
    var price: String
    var quantity: Int?
}

private struct OrderParameters: Decodable {
    var items: [LineItem]?
    var matrix: [[String]]?
    var addresses: [AddressParameters]?
    var tags: [String]?
}

/// A type whose own `init(from:)` reports problems as `DecodingError`s, as library types do.
private struct Window: Decodable {
    enum CodingKeys: String, CodingKey { case start }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.start) else {
            let context = DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "needs a start")
            throw DecodingError.keyNotFound(CodingKeys.start, context)
        }
        let start = try container.decode(String.self, forKey: .start)
        guard start.hasPrefix("t") else {
            throw DecodingError.dataCorruptedError(forKey: .start, in: container, debugDescription: "not a time")
        }
    }
}

private struct WindowParameters: Decodable {
    var window: Window?
}

// MARK: - Customers

@Suite("ParamDecoder: customer parameters as the SDKs send them")
struct ParamDecoderCustomerTests {
    @Test func aStripePythonCreateBodyDecodesEveryField() throws {
        let body =
            "email=jenny%40example.com&name=Jenny+Rosen&phone=%2B4930123"
            + "&address%5Bline1%5D=1+Main+St&address%5Bcity%5D=Berlin&address%5Bpostal_code%5D=10115"
            + "&metadata%5Border_id%5D=6735&preferred_locales%5B0%5D=de&preferred_locales%5B1%5D=en"
            + "&invoice_settings%5Bdefault_payment_method%5D=pm_123"
            + "&shipping%5Bname%5D=Jenny&shipping%5Baddress%5D%5Bcountry%5D=DE"
        let params = try decode(CustomerCreateParameters.self, body)
        #expect(params.email == "jenny@example.com")
        #expect(params.name == "Jenny Rosen")
        #expect(params.phone == "+4930123")
        #expect(params.address?.line1 == "1 Main St")
        #expect(params.address?.city == "Berlin")
        #expect(params.address?.postalCode == "10115")
        #expect(params.address?.country == nil)
        #expect(params.metadata == ["order_id": .set("6735")])
        #expect(params.preferredLocales == ["de", "en"])
        #expect(params.invoiceSettings?.defaultPaymentMethod == .set("pm_123"))
        #expect(params.shipping?.name == "Jenny")
        #expect(params.shipping?.address.country == "DE")
        #expect(params.description == nil)
    }

    @Test func anEmptyBodyLeavesEverythingUnset() throws {
        let params = try decode(CustomerCreateParameters.self, "")
        #expect(params.email == nil && params.address == nil && params.metadata == nil)
        #expect(params.preferredLocales == nil && params.shipping == nil && params.invoiceSettings == nil)
    }

    @Test func emptyValuesOnCreateMeanUnset() throws {
        let params = try decode(CustomerCreateParameters.self, "email=&address=&metadata=&preferred_locales=")
        #expect(params.email == nil)
        #expect(params.address == nil)
        #expect(params.metadata == nil)
        #expect(params.preferredLocales == nil)
    }

    @Test(arguments: [
        "preferred_locales[1]=b&preferred_locales[0]=a",
        "preferred_locales%5B1%5D=b&preferred_locales%5B0%5D=a",
        "preferred_locales[]=a&preferred_locales[]=b",
        "preferred_locales[7]=b&preferred_locales[3]=a",
    ])
    func arraysComeBackInIndexOrder(body: String) throws {
        #expect(try decode(CustomerCreateParameters.self, body).preferredLocales == ["a", "b"])
    }

    @Test func indexedArraysNeedCanonicalNonNegativeIndexes() {
        for body in ["preferred_locales[x]=a", "preferred_locales[-1]=a", "preferred_locales[01]=a"] {
            #expect(refusal(CustomerCreateParameters.self, body)?.param == "preferred_locales")
        }
    }
}

// MARK: - Unknown and ignored parameters

@Suite("ParamDecoder: unknown parameters are named in bracket form")
struct ParamDecoderUnknownParameterTests {
    @Test(arguments: [
        ("nope=1", "nope"),
        ("email=a&zzz=1&aaa=2", "zzz"),
        ("address[nope]=x", "address[nope]"),
        ("address%5Bnope%5D=x", "address[nope]"),
        ("address[city]=B&address[nope][deeper]=x", "address[nope]"),
        ("shipping[name]=n&shipping[address][nope]=x", "shipping[address][nope]"),
        ("invoice_settings[footer]=x", "invoice_settings[footer]"),
        ("expand[0]=customer", "expand"),
    ])
    func unknownParametersOnCreate(body: String, param: String) throws {
        let error = try #require(refusal(CustomerCreateParameters.self, body))
        #expect(error.code == "parameter_unknown")
        #expect(error.param == param)
        #expect(error.message == "Received unknown parameter: \(param)")
    }

    @Test(arguments: [
        ("items[0][price]=p&items[0][bogus]=1", "items[0][bogus]"),
        ("items[3][price]=p&items[3][bogus]=1", "items[3][bogus]"),
        ("items[][price]=p&items[][bogus]=1", "items[0][bogus]"),
        ("items[][price]=p&items[][price]=q&items[][bogus]=1", "items[1][bogus]"),
    ])
    func unknownParametersInsideArraysNameTheElement(body: String, param: String) {
        let error = refusal(OrderParameters.self, body)
        #expect(error?.code == "parameter_unknown")
        #expect(error?.param == param)
    }
}

// MARK: - Missing and mistyped parameters

@Suite("ParamDecoder: missing and mistyped parameters")
struct ParamDecoderTypeTests {
    @Test(arguments: [
        ("shipping[address][city]=x", "shipping[name]"),
        ("shipping[name]=&shipping[address][city]=x", "shipping[name]"),
        ("shipping[name]=Jo", "shipping[address]"),
        ("shipping[name]=Jo&shipping[address]=", "shipping[address]"),
    ])
    func shippingNeedsANameAndAnAddress(body: String, param: String) throws {
        let error = try #require(refusal(CustomerCreateParameters.self, body))
        #expect(error.code == "parameter_missing")
        #expect(error.param == param)
        #expect(error.message == "Missing required param: \(param).")
    }

    @Test func aMissingFieldInsideAnArrayElementNamesTheElement() {
        let error = refusal(OrderParameters.self, "items[0][price]=p&items[1][quantity]=2")
        #expect(error?.code == "parameter_missing")
        #expect(error?.param == "items[1][price]")
    }

    @Test(arguments: [
        ("email[x]=1", "email"),
        ("name[]=a", "name"),
        ("address=Berlin", "address"),
        ("address[city][x]=B", "address[city]"),
        ("metadata=abc", "metadata"),
        ("metadata[a][b]=1", "metadata[a]"),
        ("metadata[]=1", "metadata"),
        ("preferred_locales=de", "preferred_locales"),
        ("preferred_locales[0][x]=de", "preferred_locales[0]"),
        ("shipping=fast", "shipping"),
    ])
    func aHashWhereAValueIsExpectedAndTheReverse(body: String, param: String) {
        #expect(refusal(CustomerCreateParameters.self, body)?.param == param)
    }

    @Test(arguments: ["abc", "1.5", "99999999999999999999", "0x10", "+5", "5+", "1e3"])
    func invalidIntegers(value: String) throws {
        let error = try #require(refusal(CustomerListParameters.self, "limit=\(value)"))
        #expect(error.code == "parameter_invalid_integer")
        #expect(error.param == "limit")
    }

    @Test func integersParse() throws {
        #expect(try decode(CustomerListParameters.self, "limit=3").limit == 3)
        #expect(try decode(CustomerListParameters.self, "limit=-3").limit == -3)
        #expect(try decode(CustomerListParameters.self, "limit=").limit == nil)
        #expect(refusal(CustomerListParameters.self, "limit[x]=3")?.param == "limit")
    }

    @Test func integersOutsideTheirTypeAreRefused() {
        let error = refusal(ScalarParameters.self, "count=2147483648")
        #expect(error?.code == "parameter_invalid_integer")
        #expect(error?.param == "count")
    }

    @Test func booleansAreExactlyTrueOrFalse() throws {
        #expect(try decode(ScalarParameters.self, "flag=true").flag == true)
        #expect(try decode(ScalarParameters.self, "flag=false").flag == false)
        for value in ["yes", "TRUE", "1", "t"] {
            let error = refusal(ScalarParameters.self, "flag=\(value)")
            #expect(error?.param == "flag")
            #expect(error?.message == "Invalid boolean: \(value)")
        }
    }

    @Test func decimalsMustBeFinite() throws {
        #expect(try decode(ScalarParameters.self, "amount=1.5").amount == 1.5)
        for value in ["nan", "inf", "-infinity", "abc", "1e400"] {
            #expect(refusal(ScalarParameters.self, "amount=\(value)")?.param == "amount")
        }
    }

    @Test func parameterEnumsListTheAcceptedValues() throws {
        #expect(try decode(ScalarParameters.self, "interval=month").interval == .month)
        let error = try #require(refusal(ScalarParameters.self, "interval=fortnight"))
        #expect(error.param == "interval")
        #expect(error.code == "parameter_invalid")
        #expect(error.message.contains("`day`, `week`, `month`, `year`"))
        #expect(refusal(ScalarParameters.self, "recurring[interval]=fortnight")?.param == "recurring[interval]")
        #expect(refusal(ScalarParameters.self, "recurring[interval]=")?.param == "recurring[interval]")
    }

    @Test func decodingErrorsFromATypesOwnInitBecomePurseErrors() throws {
        #expect(try decode(ScalarParameters.self, "color=red").color == .red)
        #expect(refusal(ScalarParameters.self, "color=purple")?.param == "color")
        _ = try decode(WindowParameters.self, "window[start]=t1")
        let missing = refusal(WindowParameters.self, "window[end]=t1")
        #expect(missing?.code == "parameter_missing")
        #expect(missing?.param == "window[start]")
        #expect(refusal(WindowParameters.self, "window[start]=x")?.param == "window[start]")
    }
}

// MARK: - Updates, lists and arrays

@Suite("ParamDecoder: Patch semantics, range filters and arrays")
struct ParamDecoderPatchAndListTests {
    @Test func anEmptyValueClearsAndAnAbsentOneLeavesAlone() throws {
        let params = try decode(CustomerUpdateParameters.self, "email=&name=Jo&metadata=&address=&preferred_locales=")
        #expect(params.email == .clear)
        #expect(params.name == .set("Jo"))
        #expect(params.metadata == .clear)
        #expect(params.address == .clear)
        #expect(params.preferredLocales == .clear)
        #expect(params.phone == nil)
        #expect(params.description == nil)
        #expect(params.shipping == nil)
        #expect(params.invoiceSettings == nil)
    }

    @Test func metadataKeysAreSetOrClearedOneByOne() throws {
        let params = try decode(CustomerUpdateParameters.self, "metadata[gone]=&metadata[kept]=v")
        #expect(params.metadata == .set(["gone": .clear, "kept": .set("v")]))
    }

    @Test func nestedPatchesSetTheWholeValue() throws {
        let params = try decode(
            CustomerUpdateParameters.self,
            "address[city]=Berlin&preferred_locales[0]=de&shipping[name]=Jo&shipping[address][city]=B"
                + "&invoice_settings[default_payment_method]="
        )
        #expect(params.address?.value?.city == "Berlin")
        #expect(params.preferredLocales == .set(["de"]))
        #expect(params.shipping?.value?.name == "Jo")
        #expect(params.invoiceSettings?.defaultPaymentMethod == .clear)
    }

    @Test func patchesStillCheckTheirValues() {
        #expect(refusal(CustomerUpdateParameters.self, "address=Berlin")?.param == "address")
        #expect(refusal(CustomerUpdateParameters.self, "email[x]=1")?.param == "email")
        #expect(refusal(CustomerUpdateParameters.self, "shipping[name]=Jo")?.param == "shipping[address]")
        #expect(refusal(CustomerUpdateParameters.self, "address[nope]=1")?.param == "address[nope]")
    }

    @Test func aRangeFilterTakesAnExactValue() throws {
        let params = try decode(CustomerListParameters.self, "created=5")
        #expect(params.created == RangeFilter(gte: 5, lte: 5))
    }

    @Test func aRangeFilterTakesBounds() throws {
        let body = "created[gte]=1&created[lt]=9&limit=10&starting_after=cus_1"
        let params = try decode(CustomerListParameters.self, body)
        #expect(params.created == RangeFilter(gte: 1, lt: 9))
        #expect(params.limit == 10)
        #expect(params.startingAfter == "cus_1")
    }

    @Test func rangeFilterErrorsNameTheBound() {
        #expect(refusal(CustomerListParameters.self, "created=abc")?.param == "created")
        #expect(refusal(CustomerListParameters.self, "created[gte]=abc")?.code == "parameter_invalid_integer")
        #expect(refusal(CustomerListParameters.self, "created[gte]=abc")?.param == "created[gte]")
        #expect(refusal(CustomerListParameters.self, "created[soon]=1")?.param == "created[soon]")
    }

    @Test func eventListParameters() throws {
        let body = "types[0]=customer.created&types[1]=customer.updated&created[gt]=1&created[lte]=2&limit=3"
        let params = try decode(EventService.ListParams.self, body)
        #expect(params.types == ["customer.created", "customer.updated"])
        #expect(params.created == RangeFilter(gt: 1, lte: 2))
        #expect(params.limit == 3)
        #expect(params.type == nil)
    }

    @Test func arraysOfHashesInBothForms() throws {
        let expected = [LineItem(price: "a", quantity: 2), LineItem(price: "b", quantity: nil)]
        let indexed = try decode(OrderParameters.self, "items[1][price]=b&items[0][price]=a&items[0][quantity]=2")
        #expect(indexed.items == expected)
        let rack = try decode(OrderParameters.self, "items[][price]=a&items[][quantity]=2&items[][price]=b")
        #expect(rack.items == expected)
    }

    @Test func anEmptyElementIsAnEmptyArrayOrHash() throws {
        let params = try decode(OrderParameters.self, "matrix[0]=&matrix[1][0]=x&addresses[0]=&addresses[1][city]=B")
        #expect(params.matrix == [[], ["x"]])
        #expect(params.addresses?.count == 2)
        #expect(params.addresses?.first?.city == nil)
        #expect(params.addresses?.last?.city == "B")
    }
}

// MARK: - JSON bodies

@Suite("RequestParameters: JSON bodies become the same tree")
struct JSONBodyParameterTests {
    @Test func scalarsBecomeTextAndNullBecomesEmpty() throws {
        let params = try jsonParameters(
            #"{"limit":3,"flag":true,"off":false,"amount":1.5,"gone":null,"name":"Zoë","tags":["a",null],"#
                + #""nested":{"k":1}}"#
        )
        #expect(params.keys == ["limit", "flag", "off", "amount", "gone", "name", "tags", "nested"])
        #expect(params["limit"] == .string("3"))
        #expect(params["flag"] == .string("true"))
        #expect(params["off"] == .string("false"))
        #expect(params["amount"] == .string("1.5"))
        #expect(params["gone"] == .string(""))
        #expect(params["name"] == .string("Zoë"))
        #expect(params["tags"] == .array([.string("a"), .string("")]))
        #expect(params["nested"] == .object(ParamObject([("k", .string("1"))])))
    }

    @Test func aJSONCreateBodyDecodes() throws {
        let params = try decodeJSON(
            CustomerCreateParameters.self,
            #"{"email":null,"name":"Jenny","metadata":{"order_id":6735,"gift":true},"#
                + #""preferred_locales":["de","en"],"address":{"city":"Berlin","line2":null}}"#
        )
        #expect(params.email == nil)
        #expect(params.name == "Jenny")
        #expect(params.metadata == ["order_id": .set("6735"), "gift": .set("true")])
        #expect(params.preferredLocales == ["de", "en"])
        #expect(params.address?.city == "Berlin")
        #expect(params.address?.line2 == nil)
    }

    @Test func nullClearsInAJSONUpdate() throws {
        let params = try decodeJSON(CustomerUpdateParameters.self, #"{"email":null,"metadata":{"k":null},"name":"Jo"}"#)
        #expect(params.email == .clear)
        #expect(params.metadata == .set(["k": .clear]))
        #expect(params.name == .set("Jo"))
        #expect(params.phone == nil)
    }

    @Test func aJSONListBody() throws {
        let params = try decodeJSON(CustomerListParameters.self, #"{"limit":3,"created":{"gte":1,"lt":9}}"#)
        #expect(params.limit == 3)
        #expect(params.created == RangeFilter(gte: 1, lt: 9))
    }

    @Test func unknownJSONParametersAreNamedInBracketForm() {
        let error = #expect(throws: PurseError.self) {
            try decodeJSON(CustomerCreateParameters.self, #"{"address":{"city":"B","nope":1}}"#)
        }
        #expect(error?.param == "address[nope]")
    }

    @Test(arguments: ["application/json; charset=utf-8", "Application/JSON", "application/json"])
    func jsonContentTypes(contentType: String) throws {
        #expect(try jsonParameters(#"{"a":"b"}"#, contentType: contentType)["a"] == .string("b"))
    }

    @Test func otherContentTypesAreForms() throws {
        let form = try RequestParameters.fromBody(
            ByteBuffer(string: "a=b"), contentType: "application/x-www-form-urlencoded"
        )
        #expect(form["a"] == .string("b"))
        let untyped = try RequestParameters.fromBody(ByteBuffer(string: "a[b]=c"), contentType: nil)
        #expect(untyped["a"] == .object(ParamObject([("b", .string("c"))])))
    }

    @Test func anEmptyOrBlankJSONBodyIsNoParameters() throws {
        #expect(try jsonParameters("").isEmpty)
        #expect(try jsonParameters(" \r\n\t").isEmpty)
        #expect(try jsonParameters("{}").isEmpty)
    }

    @Test(arguments: ["[1,2]", "\"text\"", "3", "null", "true"])
    func aTopLevelThatIsNotAnObjectIsRefused(json: String) {
        let error = #expect(throws: PurseError.self) { try jsonParameters(json) }
        #expect(error?.category == .invalidRequest)
    }

    @Test(arguments: [#"{"a":}"#, #"{"a":1,}"#, "{", #"{"a":1} x"#, #"{'a':1}"#, #"{"a":"\ud800"}"#])
    func malformedJSONIsRefused(json: String) {
        let error = #expect(throws: PurseError.self) { try jsonParameters(json) }
        #expect(error?.category == .invalidRequest)
    }

    @Test func invalidUTF8InAJSONBodyIsRefused() {
        var body = ByteBuffer(string: #"{"a":""#)
        body.writeBytes([0xC3, 0x28])
        body.writeString(#""}"#)
        let error = #expect(throws: PurseError.self) {
            try RequestParameters.fromBody(body, contentType: "application/json")
        }
        #expect(error?.category == .invalidRequest)
    }

    @Test func nestingUpToTheJSONLimitIsAccepted() throws {
        let params = try jsonParameters(nestedJSON(depth: RequestParameters.maximumJSONDepth))
        #expect(params["a"] != nil)
    }

    @Test func nestingOverTheJSONLimitIsRefused() {
        let error = #expect(throws: PurseError.self) {
            try jsonParameters(nestedJSON(depth: RequestParameters.maximumJSONDepth + 1))
        }
        #expect(error?.category == .invalidRequest)
    }
}
