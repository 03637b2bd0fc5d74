import Foundation

/// A request parameter as stripe-ios sends it: a string, a hash of named values (sent with
/// bracket nesting, `billing_details[address][city]=...`) or a list (sent indexed,
/// `expand[0]=...`). Hashes keep the order their keys were written in, so bodies are stable.
indirect enum FormValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByArrayLiteral
{
    case string(String)
    case fields([Field])
    case list([FormValue])

    /// One key of a hash.
    struct Field: Sendable, Equatable {
        var key: String
        var value: FormValue
    }

    init(stringLiteral value: String) { self = .string(value) }

    init(dictionaryLiteral elements: (String, FormValue)...) {
        self = .fields(elements.map { Field(key: $0.0, value: $0.1) })
    }

    init(arrayLiteral elements: FormValue...) { self = .list(elements) }

    /// Adds `value` under `key` to a hash (a nil value adds nothing).
    mutating func set(_ key: String, _ value: FormValue?) {
        guard let value else { return }
        guard case .fields(var fields) = self else {
            self = .fields([Field(key: key, value: value)])
            return
        }
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].value = value
        } else {
            fields.append(Field(key: key, value: value))
        }
        self = .fields(fields)
    }

    /// Whether a hash or list holds nothing (and so sends nothing).
    var isEmpty: Bool {
        switch self {
        case .string: false
        case .fields(let fields): fields.isEmpty
        case .list(let items): items.isEmpty
        }
    }

    /// Nil for a hash or list with nothing in it, so it is not sent at all.
    var nonEmpty: FormValue? { isEmpty ? nil : self }

    /// `application/x-www-form-urlencoded` text, as stripe-ios's `URLEncoder` writes it: keys
    /// nest with raw brackets, lists are indexed, and every name and value is percent-encoded
    /// except for RFC 3986's unreserved characters and `/` and `?`.
    var encoded: String {
        pairs(prefix: "").map { "\($0.name)=\(Self.escape($0.value))" }.joined(separator: "&")
    }

    private func pairs(prefix: String) -> [(name: String, value: String)] {
        switch self {
        case .string(let text):
            return [(prefix, text)]
        case .fields(let fields):
            return fields.flatMap { field in
                let name = prefix.isEmpty ? Self.escape(field.key) : "\(prefix)[\(Self.escape(field.key))]"
                return field.value.pairs(prefix: name)
            }
        case .list(let items):
            return items.enumerated().flatMap { index, item in item.pairs(prefix: "\(prefix)[\(index)]") }
        }
    }

    /// stripe-ios's allowed set: the query-allowed characters without the delimiters that would
    /// change a form's meaning (`&`, `=`, `+`, brackets, ...).
    private static let allowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return allowed
    }()

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
