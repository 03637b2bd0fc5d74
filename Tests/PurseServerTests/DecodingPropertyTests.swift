import Foundation
import NIOCore
import PurseCore
import PurseModels
import TestSupport
import Testing

@testable import PurseParameters

// MARK: - Random parameter trees

private let letters = Array("abcdefghijklmnopqrstuvwxyz")
private let safeCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.~")
/// Characters that need percent-encoding or take several bytes. Names leave out brackets: once
/// decoded they are nesting (stripe-ios percent-encodes the nesting brackets too), so no name can hold one.
private let awkwardNameCharacters = Array(" &=%+?#/'\"\né日🙂👩‍💻")
private let awkwardValueCharacters = awkwardNameCharacters + Array("[]")

private func randomText(
    length: ClosedRange<Int>,
    awkward: [Character],
    using rng: inout SplitMix64
) -> String {
    let count = Int.random(in: length, using: &rng)
    return String((0..<count).map { _ in rng.chance(oneIn: 4) ? rng.pick(awkward) : rng.pick(safeCharacters) })
}

/// A parameter name; it starts with a letter so a hash never looks like an indexed array.
private func randomName(using rng: inout SplitMix64) -> String {
    String(rng.pick(letters)) + randomText(length: 0...6, awkward: awkwardNameCharacters, using: &rng)
}

private func randomValueText(using rng: inout SplitMix64) -> String {
    randomText(length: 0...8, awkward: awkwardValueCharacters, using: &rng)
}

private func randomHash(levelsLeft: Int, using rng: inout SplitMix64) -> ParamObject {
    var object = ParamObject()
    for _ in 0..<Int.random(in: 1...4, using: &rng) {
        let name = randomName(using: &rng)
        guard object[name] == nil else { continue }
        object[name] = randomValue(levelsLeft: levelsLeft, using: &rng)
    }
    return object
}

/// A value nested at most `levelsLeft` more levels; containers are never empty, as a form cannot send one.
private func randomValue(levelsLeft: Int, using rng: inout SplitMix64) -> ParamValue {
    let kind = levelsLeft == 0 ? 0 : Int.random(in: 0..<5, using: &rng)
    switch kind {
    case 3:
        let count = Int.random(in: 1...3, using: &rng)
        return .array((0..<count).map { _ in randomValue(levelsLeft: levelsLeft - 1, using: &rng) })
    case 4:
        return .object(randomHash(levelsLeft: levelsLeft - 1, using: &rng))
    default:
        return .string(randomValueText(using: &rng))
    }
}

/// Parameters whose deepest key has at most `FormParser.maximumDepth` segments.
private func randomParameters(using rng: inout SplitMix64) -> ParamObject {
    randomHash(levelsLeft: FormParser.maximumDepth - 1, using: &rng)
}

// MARK: - Encoding as stripe-python does

/// The pairs stripe-python sends for `value` under `path`: hashes by key, arrays by index, depth first.
private func flattened(_ value: ParamValue, under path: [String]) -> [(path: [String], value: String)] {
    switch value {
    case .string(let text):
        return [(path, text)]
    case .array(let elements):
        return elements.enumerated().flatMap { flattened($0.element, under: path + [String($0.offset)]) }
    case .object(let object):
        return object.entries.flatMap { flattened($0.value, under: path + [$0.key]) }
    }
}

private func escaped(_ byte: UInt8, using rng: inout SplitMix64) -> [UInt8] {
    let digits = Array((rng.chance(oneIn: 2) ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
    return [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
}

/// Percent-encodes `text` in any of the ways clients do: a space as `+` or `%20`, separators and
/// controls always escaped, anything else raw or escaped at random (raw bytes of one character may
/// even mix with escaped ones, since decoding works byte by byte).
private func formEncoded(_ text: String, using rng: inout SplitMix64) -> [UInt8] {
    var output: [UInt8] = []
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: " "):
            output += rng.chance(oneIn: 2) ? [UInt8(ascii: "+")] : escaped(byte, using: &rng)
        case UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: "%"), UInt8(ascii: "+"), 0..<0x20:
            output += escaped(byte, using: &rng)
        default:
            output += rng.chance(oneIn: 3) ? escaped(byte, using: &rng) : [byte]
        }
    }
    return output
}

/// A bracket raw (curl, stripe-node) or percent-encoded (stripe-python, stripe-ios).
private func bracket(_ raw: Character, using rng: inout SplitMix64) -> [UInt8] {
    let encoded = raw == "[" ? "%5B" : "%5D"
    return Array(rng.pick([String(raw), encoded, encoded.lowercased()]).utf8)
}

private func formKey(_ path: [String], using rng: inout SplitMix64) -> [UInt8] {
    var key = formEncoded(path[0], using: &rng)
    for segment in path.dropFirst() {
        key += bracket("[", using: &rng) + formEncoded(segment, using: &rng) + bracket("]", using: &rng)
    }
    return key
}

/// The form body for `parameters`, pairs in stripe-python's order unless `shuffled`.
private func formBody(_ parameters: ParamObject, shuffled: Bool = false, using rng: inout SplitMix64) -> [UInt8] {
    var pairs = flattened(.object(parameters), under: [])
    if shuffled { pairs.shuffle(using: &rng) }
    let encoded = pairs.map { pair in
        let key = formKey(pair.path, using: &rng)
        // An empty value may come as `key=` or as a bare `key`.
        if pair.value.isEmpty, rng.chance(oneIn: 2) { return key }
        return key + [UInt8(ascii: "=")] + formEncoded(pair.value, using: &rng)
    }
    return Array(encoded.joined(separator: [UInt8(ascii: "&")]))
}

// MARK: - Comparing trees

/// What the parser gives for a tree: arrays become hashes keyed by index, as SDKs send them.
private func indexedForm(_ value: ParamValue) -> ParamValue {
    switch value {
    case .string: return value
    case .array(let elements):
        return .object(ParamObject(elements.enumerated().map { (String($0.offset), indexedForm($0.element)) }))
    case .object(let object):
        return .object(ParamObject(object.entries.map { ($0.key, indexedForm($0.value)) }))
    }
}

/// Turns hashes keyed by index back into arrays.
private func restoringArrays(_ value: ParamValue) -> ParamValue {
    guard case .object(let object) = value else { return value }
    if !object.isEmpty, let elements = object.indexedElements { return .array(elements.map(restoringArrays)) }
    return .object(ParamObject(object.entries.map { ($0.key, restoringArrays($0.value)) }))
}

/// Hash keys sorted at every level, for comparing trees whose pairs arrived in any order.
private func canonical(_ value: ParamValue) -> ParamValue {
    switch value {
    case .string: return value
    case .array(let elements): return .array(elements.map(canonical))
    case .object(let object):
        return .object(ParamObject(object.entries.sorted { $0.key < $1.key }.map { ($0.key, canonical($0.value)) }))
    }
}

private func json(_ value: ParamValue) -> JSONValue {
    switch value {
    case .string(let text): return .string(text)
    case .array(let elements): return .array(elements.map(json))
    case .object(let object): return .object(JSONObject(object.entries.map { ($0.key, json($0.value)) }))
    }
}

// MARK: - Never crashing

/// Parses a body that is valid by construction; a refusal is a failure that names its seed.
private func parseValid(_ bytes: [UInt8], seed: UInt64) throws -> ParamObject {
    do {
        return try FormParser.parse(bytes)
    } catch {
        Issue.record("seed \(seed): refused \(String(decoding: bytes, as: UTF8.self)): \(error)")
        throw error
    }
}

/// Parses `bytes`, which must either work or be refused as an invalid request.
private func parsedOrRefused(_ bytes: [UInt8], seed: UInt64) -> ParamObject? {
    do {
        return try FormParser.parse(bytes)
    } catch let error as PurseError {
        #expect(error.category == .invalidRequest, "seed \(seed)")
    } catch {
        Issue.record("seed \(seed): FormParser threw \(error) for \(bytes)")
    }
    return nil
}

/// Decodes parsed parameters into real structs, which must either work or refuse with a PurseError.
private func expectDecodesOrRefuses(_ parameters: ParamObject, seed: UInt64) {
    func attempt(_ decode: () throws -> Void) {
        do {
            try decode()
        } catch let error as PurseError {
            #expect(error.category == .invalidRequest, "seed \(seed)")
        } catch {
            Issue.record("seed \(seed): ParamDecoder threw \(error)")
        }
    }
    attempt { _ = try ParamDecoder().decode(CustomerCreateParameters.self, from: parameters) }
    attempt { _ = try ParamDecoder().decode(CustomerUpdateParameters.self, from: parameters) }
    attempt { _ = try ParamDecoder().decode(EventService.ListParams.self, from: parameters) }
}

/// `bytes` with a few random bytes replaced, inserted or removed.
private func mutated(_ bytes: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
    let interesting = Array("[]%&=+0aF".utf8) + [0x00, 0x80, 0xC3, 0xFF]
    var result = bytes
    for _ in 0..<Int.random(in: 1...4, using: &rng) {
        let byte = rng.chance(oneIn: 2) ? rng.pick(interesting) : UInt8.random(in: 0...255, using: &rng)
        let position = Int.random(in: 0...result.count, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0 where position < result.count: result[position] = byte
        case 1 where position < result.count: result.remove(at: position)
        default: result.insert(byte, at: position)
        }
    }
    return result
}

private let seeds: ClosedRange<UInt64> = 1...300

// MARK: - Properties

@Suite("Decoding properties over random parameter trees")
struct DecodingPropertyTests {
    @Test func stripePythonBodiesParseBackToTheTree() throws {
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let sent = randomParameters(using: &rng)
            let parsed = try parseValid(formBody(sent, using: &rng), seed: seed)
            #expect(ParamValue.object(parsed) == indexedForm(.object(sent)), "seed \(seed)")
            #expect(restoringArrays(.object(parsed)) == ParamValue.object(sent), "seed \(seed)")
        }
    }

    @Test func pairOrderDoesNotChangeTheTree() throws {
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let sent = randomParameters(using: &rng)
            let parsed = try parseValid(formBody(sent, shuffled: true, using: &rng), seed: seed)
            #expect(canonical(restoringArrays(.object(parsed))) == canonical(.object(sent)), "seed \(seed)")
        }
    }

    @Test func aJSONBodyGivesTheSameTreeAsTheForm() throws {
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let sent = randomParameters(using: &rng)
            let body = ByteBuffer(bytes: JSONWriter.bytes(json(.object(sent))))
            let fromJSON = try RequestParameters.fromBody(body, contentType: "application/json")
            #expect(fromJSON == sent, "seed \(seed)")
            let fromForm = try parseValid(formBody(sent, using: &rng), seed: seed)
            #expect(restoringArrays(.object(fromForm)) == ParamValue.object(fromJSON), "seed \(seed)")
        }
    }

    @Test func keysAtTheDepthLimitParseAndDeeperOnesAreRefused() throws {
        for seed in seeds.prefix(100) {
            var rng = SplitMix64(seed: seed)
            let path = (0..<FormParser.maximumDepth).map { _ in randomName(using: &rng) }
            let deepest = try parseValid(formKey(path, using: &rng) + Array("=x".utf8), seed: seed)
            #expect(deepest[path[0]] != nil, "seed \(seed)")
            let tooDeep = formKey(path + [randomName(using: &rng)], using: &rng) + Array("=x".utf8)
            let error = #expect(throws: PurseError.self, "seed \(seed)") { try FormParser.parse(tooDeep) }
            #expect(error?.param == path[0], "seed \(seed)")
        }
    }

    @Test func customerCreateBodiesDecodeToWhatWasSent() throws {
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let sent = RandomCustomer(using: &rng)
            let body = formBody(sent.parameters, shuffled: rng.chance(oneIn: 2), using: &rng)
            let params = try ParamDecoder().decode(CustomerCreateParameters.self, from: parseValid(body, seed: seed))
            #expect(params.email == sent.email, "seed \(seed)")
            #expect(params.name == sent.name, "seed \(seed)")
            #expect(params.preferredLocales == sent.locales, "seed \(seed)")
            #expect(params.metadata == sent.expectedMetadata, "seed \(seed)")
            #expect(params.address?.city == sent.address?["city"], "seed \(seed)")
            #expect(params.address?.line1 == sent.address?["line1"], "seed \(seed)")
            #expect(params.address?.postalCode == sent.address?["postal_code"], "seed \(seed)")
        }
    }

    @Test func randomBytesParseOrAreRefusedNeverCrash() {
        let interesting = Array("[]%&=+05aFz".utf8) + [0x00, 0x80, 0xC3, 0xE2, 0xFF]
        for seed in 1...1_000 as ClosedRange<UInt64> {
            var rng = SplitMix64(seed: seed)
            let count = Int.random(in: 0...80, using: &rng)
            let bytes = (0..<count).map { _ in
                rng.chance(oneIn: 2) ? rng.pick(interesting) : UInt8.random(in: 0...255, using: &rng)
            }
            if let parsed = parsedOrRefused(bytes, seed: seed) { expectDecodesOrRefuses(parsed, seed: seed) }
        }
    }

    @Test func damagedSDKBodiesParseOrAreRefusedNeverCrash() {
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let body = mutated(formBody(randomParameters(using: &rng), using: &rng), using: &rng)
            if let parsed = parsedOrRefused(body, seed: seed) { expectDecodesOrRefuses(parsed, seed: seed) }
        }
    }

    @Test func damagedJSONBodiesParseOrAreRefusedNeverCrash() {
        for seed in seeds { checkDamagedJSON(seed: seed) }
    }

    /// The fuzzing run: random, damaged form and damaged JSON bodies from fresh seeds for
    /// `PURSE_FUZZ_SECONDS` (default 30; the recorded long run used 600), starting at
    /// `PURSE_FUZZ_SEED` (default: random, printed so a failure can be replayed).
    /// Gives its thread back between slices of work: the test runs for half a minute, and one of
    /// Swift's two cooperative threads held that long starves the other suites' servers.
    @Test func fuzzingTheDecodersForAWhileFindsNothing() async {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["PURSE_FUZZ_SECONDS"].flatMap(Int.init) ?? 30
        let firstSeed = environment["PURSE_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1_000_000...UInt64(1) << 48)
        let deadline = ContinuousClock.now + .seconds(seconds)
        var seed = firstSeed
        while ContinuousClock.now < deadline {
            var rng = SplitMix64(seed: seed)
            let body = mutated(formBody(randomParameters(using: &rng), using: &rng), using: &rng)
            if let parsed = parsedOrRefused(body, seed: seed) { expectDecodesOrRefuses(parsed, seed: seed) }
            checkDamagedJSON(seed: seed)
            seed += 1
            if seed % 64 == 0 { await Task.yield() }
        }
        print("fuzzing: \(seed - firstSeed) seeds (\(2 * (seed - firstSeed)) bodies) in \(seconds) s, seeds \(firstSeed)..<\(seed)")
    }

    private func checkDamagedJSON(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let bytes = mutated(JSONWriter.bytes(json(.object(randomParameters(using: &rng)))), using: &rng)
        do {
            let parameters = try RequestParameters.fromBody(ByteBuffer(bytes: bytes), contentType: "application/json")
            expectDecodesOrRefuses(parameters, seed: seed)
        } catch let error as PurseError {
            #expect(error.category == .invalidRequest, "seed \(seed)")
        } catch {
            Issue.record("seed \(seed): RequestParameters threw \(error)")
        }
    }
}

// MARK: - Random customers

/// A customer create request with random values, and what decoding it must give.
private struct RandomCustomer {
    var email: String?
    var name: String?
    var locales: [String]?
    /// Values may be empty, which asks to leave the key out.
    var metadata: [String: String]?
    var address: [String: String]?

    init(using rng: inout SplitMix64) {
        // Each part is left out one time in three.
        email = rng.chance(oneIn: 3) ? nil : nonEmptyText(using: &rng)
        name = rng.chance(oneIn: 3) ? nil : nonEmptyText(using: &rng)
        locales = rng.chance(oneIn: 3) ? nil : Self.randomLocales(using: &rng)
        metadata = rng.chance(oneIn: 3) ? nil : Self.randomMetadata(using: &rng)
        address = rng.chance(oneIn: 3) ? nil : Self.randomAddress(using: &rng)
    }

    private static func randomLocales(using rng: inout SplitMix64) -> [String] {
        (0..<Int.random(in: 1...4, using: &rng)).map { _ in nonEmptyText(using: &rng) }
    }

    private static func randomMetadata(using rng: inout SplitMix64) -> [String: String] {
        var pairs: [String: String] = [:]
        for _ in 0..<Int.random(in: 1...5, using: &rng) {
            pairs[randomName(using: &rng)] = randomValueText(using: &rng)
        }
        return pairs
    }

    private static func randomAddress(using rng: inout SplitMix64) -> [String: String] {
        var fields: [String: String] = [:]
        for field in ["city", "line1", "postal_code"] where !rng.chance(oneIn: 3) {
            fields[field] = nonEmptyText(using: &rng)
        }
        return fields.isEmpty ? ["city": "Berlin"] : fields
    }

    var expectedMetadata: MetadataParameter? {
        metadata?.mapValues { $0.isEmpty ? .clear : .set($0) }
    }

    /// The request as an SDK holds it before encoding.
    var parameters: ParamObject {
        var object = ParamObject()
        object["email"] = email.map(ParamValue.string)
        object["name"] = name.map(ParamValue.string)
        object["preferred_locales"] = locales.map { .array($0.map(ParamValue.string)) }
        object["metadata"] = metadata.map(Self.hash)
        object["address"] = address.map(Self.hash)
        return object
    }

    private static func hash(_ pairs: [String: String]) -> ParamValue {
        .object(ParamObject(pairs.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
    }
}

private func nonEmptyText(using rng: inout SplitMix64) -> String {
    randomText(length: 1...10, awkward: awkwardValueCharacters, using: &rng)
}
