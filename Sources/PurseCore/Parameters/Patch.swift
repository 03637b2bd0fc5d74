/// A parameter of an update: `.set(value)`, or `.clear` when sent empty (`email=`), as Stripe's
/// updates read an empty value. An absent parameter is `nil` around it (`Patch<String>?`).
public enum Patch<Value: Sendable>: Sendable {
    case clear
    case set(Value)

    public var value: Value? {
        if case .set(let value) = self { return value }
        return nil
    }
}

extension Patch: Equatable where Value: Equatable {}

/// A parameter type for which an empty value means "clear" rather than "absent".
public protocol ClearableParameter {}

extension Patch: ClearableParameter {}

extension Patch: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .clear : .set(try Value(from: decoder))
    }
}
