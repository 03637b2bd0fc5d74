import NIOCore
import PurseCore
import PurseModels

/// Request parameters, whatever their encoding: JSON bodies when the Content-Type says so,
/// otherwise Stripe's form encoding; query strings for GET and DELETE.
enum RequestParameters {
    /// JSON nesting accepted in a body.
    static let maximumJSONDepth = 32

    static func fromBody(_ body: ByteBuffer, contentType: String?) throws -> ParamObject {
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
            return object.paramObject
        }
        return try FormParser.parse(bytes)
    }

    static func fromQuery(_ query: String?) throws -> ParamObject {
        guard let query, !query.isEmpty else { return ParamObject() }
        return try FormParser.parse(Array(query.utf8))
    }

    /// Takes `expand` out of the parameters: `expand[]=a`, `expand[0]=a` or `expand=a`.
    static func extractExpand(from parameters: inout ParamObject) throws -> [String] {
        guard let value = parameters["expand"] else { return [] }
        parameters["expand"] = nil
        let elements: [ParamValue]
        switch value {
        case .string(""): return []
        case .string: elements = [value]
        case .array(let array): elements = array
        case .object(let object):
            guard let indexed = object.indexedElements else {
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
