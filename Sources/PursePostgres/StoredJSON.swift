import Postgres
import PurseModels

/// Models kept in `json` and `jsonb` columns (addresses, metadata, billing details): written
/// with the wire encoding, read back with ``JSONReader`` and ``JSONValueDecoder`` (several times
/// faster than Foundation's decoder, which a list of methods spent most of its time in).
enum StoredJSON {
    /// The value's wire JSON, bound as `json`: a `json` column keeps this text as it is (so it
    /// can be copied into responses), a `jsonb` column converts it on assignment.
    static func encode(_ value: some Encodable) -> PostgresJSON {
        // `try!`: the models stored this way hold only strings, numbers and nested models.
        PostgresJSON(JSONWriter.string(try! JSONValueEncoder().encode(value)), type: .json)
    }

    static func encodeIfPresent(_ value: (some Encodable)?) -> PostgresJSON? {
        guard let value else { return nil }
        return encode(value)
    }

    static func decode<Value: Decodable>(_: Value.Type, from json: PostgresJSON) throws -> Value {
        try JSONValueDecoder().decode(Value.self, from: try JSONReader.parse(json.text))
    }

    static func decodeIfPresent<Value: Decodable>(_: Value.Type, from json: PostgresJSON?) throws -> Value? {
        try json.map { try decode(Value.self, from: $0) }
    }
}
