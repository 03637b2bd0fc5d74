public import NIOCore
import PurseCore
import PurseModels

/// Request parameters, whatever their encoding: JSON bodies when the Content-Type says so,
/// otherwise Stripe's form encoding; query strings for GET and DELETE. Public for the fuzz target
/// (`Fuzz/purse-fuzz`), which feeds it what a client could send.
public enum RequestParameters {
    /// JSON nesting accepted in a body.
    static let maximumJSONDepth = 32

    public static func fromBody(_ body: ByteBuffer, contentType: String?) throws -> ParamObject {
        let bytes = body.readableBytesView
        if let contentType, contentType.lowercased().hasPrefix("application/json") {
            if bytes.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) { return ParamObject() }
            let json: JSONValue
            do {
                json = try JSONReader.parse(Array(bytes), maximumDepth: maximumJSONDepth)
            } catch let error as JSONReader.ParseError {
                throw PurseError(.invalidRequest, message: "The request body is not valid JSON: \(error.description)")
            }
            guard case .object(let object) = json else {
                throw PurseError(.invalidRequest, message: "The JSON request body must be an object.")
            }
            let parameters = object.paramObject
            try refuseNUL(in: .object(parameters), path: [])
            return parameters
        }
        return try FormParser.parse(bytes)
    }

    /// JSON may escape a NUL (`\u0000`), which PostgreSQL text cannot hold: refused like the form
    /// parser refuses `%00`, naming the parameter, rather than failing in the database.
    private static func refuseNUL(in value: ParamValue, path: [String]) throws {
        switch value {
        case .string(let text):
            guard !text.utf8.contains(0) else {
                let param = ParameterPath.bracketed(path)
                throw PurseError.invalidParameter(param, "The value of \(param) contains a NUL character.")
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() { try refuseNUL(in: element, path: path + [String(index)]) }
        case .object(let object):
            for entry in object.entries {
                guard !entry.key.utf8.contains(0) else {
                    throw PurseError(.invalidRequest, message: "A parameter name contains a NUL character.")
                }
                try refuseNUL(in: entry.value, path: path + [entry.key])
            }
        }
    }

    package static func fromQuery(_ query: String?) throws -> ParamObject {
        guard let query, !query.isEmpty else { return ParamObject() }
        return try FormParser.parse(Array(query.utf8))
    }

    /// Takes `expand` out of the parameters: `expand[]=a`, `expand[0]=a` or `expand=a`.
    package static func extractExpand(from parameters: inout ParamObject) throws -> [String] {
        guard let value = parameters["expand"] else { return [] }
        parameters["expand"] = nil
        let elements: [ParamValue]
        switch value {
        case .string(""): return []
        case .string: elements = [value]
        case .array(let array): elements = array
        case .object(let object):
            // `{}` (only JSON can send it) is no list, as `{"a": 1}` is none.
            guard !object.isEmpty, let indexed = object.indexedElements else {
                throw PurseError.invalidParameter("expand", "Invalid expand: expected an array of strings.")
            }
            elements = indexed
        }
        return try elements.map { element in
            guard case .string(let path) = element, !path.isEmpty else {
                throw PurseError.invalidParameter("expand", "Invalid expand: expected an array of strings.")
            }
            return path
        }
    }
}

extension JSONObject {
    /// JSON as parameters: scalars become their text, `null` becomes empty (unset).
    var paramObject: ParamObject {
        ParamObject(entries.map { ($0.key, $0.value.paramValue) })
    }
}

extension JSONValue {
    var paramValue: ParamValue {
        switch self {
        case .null: return .string("")
        case .bool(let flag): return .string(flag ? "true" : "false")
        case .int(let number): return .string(String(number))
        case .double(let number): return .string(String(number))
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map(\.paramValue))
        case .object(let object): return .object(object.paramObject)
        }
    }
}
