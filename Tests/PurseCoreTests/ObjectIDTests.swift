import PurseCore
import Testing

@Suite("Object ids")
struct ObjectIDTests {
    @Test func anIdIsItsPrefixAndTwentyFourBase62Characters() {
        let id = ObjectID.make(.customer)
        #expect(id.hasPrefix("cus_"))
        #expect(id.utf8.count == 4 + 24)
        #expect(ObjectID.isWellFormed(id, prefix: .customer))
        #expect(!ObjectID.isWellFormed(id, prefix: .paymentMethod))
        #expect(ObjectID.randomBase62(length: 1).utf8.count == 1)
        #expect(ObjectID.randomBase62(length: 61).utf8.count == 61)
        let long = ObjectID.randomBase62(length: 5_000)
        #expect(long.utf8.count == 5_000)
        #expect(long.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }

    /// Each draw's eight bytes are all used; the characters must stay uniform and the ids distinct.
    @Test func charactersAreUniformAndIdsDistinct() {
        let draws = 4_000
        var counts: [Character: Int] = [:]
        var seen = Set<String>()
        for _ in 0..<draws {
            let text = ObjectID.randomBase62(length: 31)
            seen.insert(text)
            for character in text { counts[character, default: 0] += 1 }
        }
        #expect(seen.count == draws)
        #expect(counts.count == 62)
        // 124,000 characters over 62: 2,000 each expected, standard deviation about 44.
        let expected = Double(draws * 31) / 62
        for (character, count) in counts {
            #expect(abs(Double(count) - expected) < 350, "\(character) appeared \(count) times")
        }
    }
}
