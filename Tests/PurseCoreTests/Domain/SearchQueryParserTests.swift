import Testing

@testable import PurseCore

/// Stripe's search query language as customers' fields take it: what parses into which clauses,
/// and what is refused, with the message and the parameter it names.
@Suite("Search query language")
struct SearchQueryParserTests {
    private let parser = CustomerSearchParameters.parser

    private func refusal(_ query: String) -> PurseError? {
        #expect(throws: PurseError.self) { try parser.parse(query) }
    }

    @Test func aClauseHasAFieldAComparisonAndAValue() throws {
        let query = try parser.parse("email:'jenny@example.com'")
        #expect(
            query == SearchQuery(clauses: [SearchClause(field: "email", comparison: .matches, value: .text("jenny@example.com"))], connective: .and))
    }

    @Test func everyComparisonIsRead() throws {
        let clauses = try parser.parse("created>1 created>=2 created<3 created<=4 created:5 name~'abc'").clauses
        #expect(clauses.map(\.comparison) == [.greaterThan, .greaterThanOrEqual, .lessThan, .lessThanOrEqual, .matches, .contains])
        #expect(clauses.prefix(5).map(\.value) == [.number(1), .number(2), .number(3), .number(4), .number(5)])
    }

    @Test func numbersMayBeQuoted() throws {
        #expect(try parser.parse("created>'1700000000'").clauses[0].value == .number(1_700_000_000))
    }

    @Test func bothQuotesAndBackslashEscapes() throws {
        #expect(try parser.parse(#"name:"Sam \"The\" O'Brien""#).clauses[0].value == .text(#"Sam "The" O'Brien"#))
        #expect(try parser.parse(#"name:'Sam O\'Brien'"#).clauses[0].value == .text("Sam O'Brien"))
    }

    @Test func metadataTakesAQuotedKey() throws {
        let clauses = try parser.parse(#"metadata['plan']:'pro' metadata["order id"]:null"#).clauses
        #expect(clauses[0].key == "plan" && clauses[0].value == .text("pro"))
        #expect(clauses[1].key == "order id" && clauses[1].value == .null)
    }

    @Test func aMinusNegatesAClause() throws {
        let clauses = try parser.parse("-email:null name:'x'").clauses
        #expect(clauses.map(\.negated) == [true, false])
    }

    @Test func spacesAndAndJoinAlikeAndOrJoinsInAnyCase() throws {
        #expect(try parser.parse("name:'a' email:'b'").connective == .and)
        #expect(try parser.parse("name:'a'   and   email:'b' AND phone:'c'").connective == .and)
        #expect(try parser.parse("name:'a' or email:'b' OR phone:'c'").connective == .or)
        #expect(try parser.parse("  name:'a'  ").clauses.count == 1)
    }

    @Test func andAndOrCannotBeMixed() {
        for query in ["name:'a' AND email:'b' OR phone:'c'", "name:'a' email:'b' OR phone:'c'", "name:'a' OR email:'b' phone:'c'"] {
            let error = refusal(query)
            #expect(error?.param == "query")
            #expect(error?.message.contains("cannot combine AND with OR") == true, "\(query)")
        }
    }

    @Test func atMostTenClauses() throws {
        let ten = (0..<10).map { "name:'n\($0)'" }
        #expect(try parser.parse(ten.joined(separator: " OR ")).clauses.count == 10)
        #expect(refusal((ten + ["name:'n10'"]).joined(separator: " OR "))?.message.contains("at most 10") == true)
    }

    @Test func operatorsFollowTheFieldsType() {
        #expect(refusal("email>'a'")?.message.contains("cannot be used on email, a string field") == true)
        #expect(refusal("metadata['k']~'abc'")?.message.contains("cannot be used on metadata, a token field") == true)
        #expect(refusal("created~'123'")?.message.contains("cannot be used on created, a numeric field") == true)
        #expect(refusal("metadata['k']>'1'") != nil)
    }

    @Test func substringsNeedThreeCharacters() throws {
        #expect(refusal("name~'ab'")?.message.contains("at least 3 characters") == true)
        #expect(try parser.parse("name~'abc'").clauses[0].value == .text("abc"))
    }

    @Test func stringValuesMustBeQuoted() {
        #expect(refusal("email:jenny")?.message.contains("must be quoted") == true)
        #expect(refusal("metadata['k']:pro")?.message.contains("must be quoted") == true)
    }

    @Test func createdTakesWholeNumbers() {
        #expect(refusal("created>yesterday")?.message.contains("whole number") == true)
        #expect(refusal("created:'1.5'")?.message.contains("whole number") == true)
    }

    @Test func nullOnlyWithAColon() throws {
        #expect(try parser.parse("phone:NULL").clauses[0].value == .null)
        #expect(refusal("created>null")?.message.contains("null can only be used with ':'") == true)
    }

    @Test func unknownFieldsNameTheOnesThereAre() {
        let message = refusal("nickname:'x'")?.message
        #expect(message == "'nickname' is not a field you can search customers by; the fields are created, email, metadata, name and phone.")
    }

    @Test func malformedQueriesSayWhere() {
        #expect(refusal("")?.message.contains("empty") == true)
        #expect(refusal("   ")?.message.contains("empty") == true)
        #expect(refusal("email:'open")?.message.contains("character 7") == true)
        #expect(refusal("(email:'a')")?.message.contains("Expected a field name at character 1") == true)
        #expect(refusal("email='a'")?.message.contains("Expected one of") == true)
        #expect(refusal("email:")?.message.contains("Expected a value") == true)
        #expect(refusal("email:'a'name:'b'")?.message.contains("separated") == true)
        #expect(refusal("metadata:'x'")?.message.contains("needs a key") == true)
        #expect(refusal("metadata[plan]:'x'")?.message.contains("quoted") == true)
        #expect(refusal("metadata['plan':'x'")?.message.contains("ends with ]") == true)
        #expect(refusal("name['x']:'y'")?.message.contains("Only metadata") == true)
        #expect(refusal("name:'a' AND")?.message != nil)
        #expect(refusal(String(repeating: "a", count: 5001))?.message.contains("longer than 5000") == true)
    }

    @Test func aPageTokenContinuesOnlyItsOwnSearch() throws {
        let position = SearchPosition(created: 1_700_000_000, sequence: 42)
        let token = position.token(for: "name:'a'")
        #expect(token.hasPrefix("page_"))
        #expect(try SearchPosition(token: token, query: "name:'a'") == position)
        let other = #expect(throws: PurseError.self) { try SearchPosition(token: token, query: "name:'b'") }
        #expect(other?.param == "page" && other?.message.contains("another search") == true)
        for garbage in ["", "page_", "page_x_y_z_w", "cus_123", "page_1_2"] {
            #expect(throws: PurseError.self) { try SearchPosition(token: garbage, query: "name:'a'") }
        }
    }
}
