import PurseCore
import PurseModels

/// Parses Stripe's form encoding (`application/x-www-form-urlencoded` bodies and query strings)
/// into a ``ParamValue`` tree.
///
/// Keys nest with brackets, raw or percent-encoded: `billing_details[address][line1]=`. Arrays
/// come as `a[]=x` (curl, Rack) or `a[0]=x` (Stripe's SDKs); `a[][k]=` builds arrays of hashes
/// the way Rack does (a repeated key starts a new element). Every malformed input is a
/// ``PurseError`` naming the parameter, never a crash.
public enum FormParser {
    /// The deepest bracket nesting accepted; Stripe's own parameters need five.
    public static let maximumDepth = 10
    /// The most `key=value` pairs accepted in one request.
    public static let maximumPairs = 10_000

    public static func parse(_ bytes: some Collection<UInt8>) throws -> ParamObject {
        let root = Node()
        var pairs = 0
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            pairs += 1
            guard pairs <= maximumPairs else {
                throw PurseError(.invalidRequest, message: "Too many parameters: at most \(maximumPairs) are accepted.")
            }
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let key = try decodeComponent(pair[..<equals], what: "parameter name")
            let value = equals < pair.endIndex ? try decodeComponent(pair[pair.index(after: equals)...], what: "value of \(key)") : ""
            // A value without a name (`=x`) is no parameter the API knows, as in a JSON body (`{"": "x"}`).
            guard !key.isEmpty else {
                throw PurseError(.invalidRequest, message: "A parameter has no name (a pair of the form =value).")
            }
            try insert(value, at: try segments(of: key), into: root, fullKey: key)
        }
        return root.objectValue
    }

    // MARK: - Keys

    /// `a[b][]` → `["a", "b", ""]`. Brackets are found in the key's bytes, as Rack does.
    static func segments(of key: String) throws -> [String] {
        let bytes = key.utf8
        let (open, close) = (UInt8(ascii: "["), UInt8(ascii: "]"))
        guard let first = bytes.firstIndex(of: open) else {
            guard !bytes.contains(close) else { throw malformed(key) }
            return [key]
        }
        guard first > bytes.startIndex else { throw malformed(key) }
        let name = String(key[..<first])
        var segments = [name]
        var rest = bytes[first...]
        while let next = rest.first {
            guard next == open, let end = rest.firstIndex(of: close) else { throw malformed(key) }
            let segment = rest[rest.index(after: rest.startIndex)..<end]
            guard !segment.contains(open) else { throw malformed(key) }
            segments.append(String(key[segment.startIndex..<segment.endIndex]))
            rest = rest[rest.index(after: end)...]
        }
        guard segments.count <= maximumDepth else {
            throw PurseError.invalidParameter(
                name, "The parameter \(name) is nested more than \(maximumDepth) levels deep."
            )
        }
        return segments
    }

    private static func malformed(_ key: String) -> PurseError {
        PurseError.invalidParameter(key, "Invalid parameter name: \(key) (brackets must pair up, as in a[b][c]).")
    }

    // MARK: - Values

    /// Percent-decodes a component (`+` is a space) and checks it is valid UTF-8 without NULs.
    /// `what` names the component in an error; built only then.
    static func decodeComponent(_ bytes: some Collection<UInt8>, what: @autoclosure () -> String) throws -> String {
        // Most components have nothing to decode: validate them where they are.
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return try validatedText(bytes, what: what)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(\.hexDigitValue), let low = iterator.next().flatMap(\.hexDigitValue) else {
                    throw PurseError(.invalidRequest, message: "Malformed percent-encoding in the \(what()).")
                }
                decoded.append(high << 4 | low)
            default:
                decoded.append(byte)
            }
        }
        return try validatedText(decoded, what: what)
    }

    private static func validatedText(_ bytes: some Collection<UInt8>, what: () -> String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PurseError(.invalidRequest, message: "The \(what()) is not valid UTF-8.")
        }
        guard !bytes.contains(0) else {
            throw PurseError(.invalidRequest, message: "The \(what()) contains a NUL character.")
        }
        return text
    }

    // MARK: - The tree

    /// A mutable node used while parsing; nodes are classes so appending stays cheap.
    final class Node {
        enum Content {
            case empty
            case scalar(String)
            case object(keys: [String], children: [String: Node])
            case array([Node])
        }

        var content: Content = .empty

        var objectValue: ParamObject {
            guard case .object(let keys, let children) = content else { return ParamObject() }
            return ParamObject(keys.map { ($0, children[$0]!.value) })
        }

        var value: ParamValue {
            switch content {
            case .empty: return .string("")
            case .scalar(let text): return .string(text)
            case .object: return .object(objectValue)
            case .array(let nodes): return .array(nodes.map(\.value))
            }
        }

        func child(_ key: String) -> Node? {
            guard case .object(_, let children) = content else { return nil }
            return children[key]
        }

        /// Whether the nested keys `path` all exist below this node.
        func has(_ path: ArraySlice<String>) -> Bool {
            guard let first = path.first else { return true }
            return child(first)?.has(path.dropFirst()) ?? false
        }
    }

    private static func insert(_ value: String, at path: [String], into root: Node, fullKey: String) throws {
        var node = root
        for (depth, segment) in path.enumerated() {
            let isLast = depth == path.count - 1
            if segment.isEmpty {
                // `a[]`: append, or for `a[][k]` extend the last hash unless it already has `k`.
                var elements: [Node]
                switch node.content {
                case .empty: elements = []
                case .array(let existing): elements = existing
                default: throw conflict(ParameterPath.bracketed(Array(path.prefix(depth))))
                }
                // The node lets go of its array while it grows, so appending does not copy it:
                // 10,000 `a[]=` pairs stay linear.
                node.content = .empty
                if isLast {
                    let element = Node()
                    element.content = .scalar(value)
                    elements.append(element)
                    node.content = .array(elements)
                    return
                }
                // As Rack does: the last hash takes the rest of the key unless it already has it;
                // a rest with an array in it (`a[][tags][]`) always extends the last hash.
                let rest = path[(depth + 1)...]
                if let last = elements.last, case .object = last.content, !rest.isEmpty,
                    rest.contains("") || !last.has(rest)
                {
                    node.content = .array(elements)
                    node = last
                } else {
                    let element = Node()
                    elements.append(element)
                    node.content = .array(elements)
                    node = element
                }
                continue
            }
            var keys: [String]
            var children: [String: Node]
            switch node.content {
            case .empty: (keys, children) = ([], [:])
            case .object(let existingKeys, let existingChildren): (keys, children) = (existingKeys, existingChildren)
            default: throw conflict(ParameterPath.bracketed(Array(path.prefix(depth))))
            }
            let child: Node
            if let existing = children[segment] {
                child = existing
            } else {
                child = Node()
                // As for arrays: no second reference while the hash grows (no copy per new key).
                node.content = .empty
                children[segment] = child
                keys.append(segment)
                node.content = .object(keys: keys, children: children)
            }
            if isLast {
                switch child.content {
                case .empty, .scalar: child.content = .scalar(value)  // a repeated key: the last wins
                default: throw conflict(ParameterPath.bracketed(Array(path.prefix(depth + 1))))
                }
                return
            }
            node = child
        }
    }

    private static func conflict(_ param: String) -> PurseError {
        PurseError.invalidParameter(
            param, "Invalid value for \(param): it was sent both as a single value and as a nested one."
        )
    }
}
