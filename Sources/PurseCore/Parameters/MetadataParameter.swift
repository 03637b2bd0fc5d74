public import PurseModels

/// `metadata[key]=value` as sent: an empty value removes a key, `metadata=` removes them all.
public typealias MetadataParameter = [String: Patch<String>]

/// Stripe's limits on metadata, applied to what a request asks for.
public enum MetadataRules {
    public static let maximumKeys = 50
    public static let maximumKeyLength = 40
    public static let maximumValueLength = 500

    /// Metadata for a new object: the keys given a value.
    public static func new(_ parameter: MetadataParameter?, param: String = "metadata") throws -> Metadata {
        try updated(Metadata(), with: parameter.map(Patch.set), param: param)
    }

    /// `existing` after an update's `metadata` parameter.
    public static func updated(
        _ existing: Metadata,
        with parameter: Patch<MetadataParameter>?,
        param: String = "metadata"
    ) throws -> Metadata {
        guard let parameter else { return existing }
        guard case .set(let changes) = parameter else { return Metadata() }
        var result = existing
        for key in changes.keys.sorted() {
            let keyParam = "\(param)[\(key)]"
            guard !key.isEmpty, key.count <= maximumKeyLength else {
                throw PurseError.invalidParameter(
                    keyParam, "Metadata keys must have 1 to \(maximumKeyLength) characters."
                )
            }
            switch changes[key]! {
            case .clear:
                result[key] = nil
            case .set(let value):
                guard value.count <= maximumValueLength else {
                    throw PurseError.invalidParameter(
                        keyParam, "Metadata values can have up to \(maximumValueLength) characters, but this one has \(value.count)."
                    )
                }
                result[key] = value
            }
        }
        guard result.values.count <= maximumKeys else {
            throw PurseError.invalidParameter(param, "An object can have up to \(maximumKeys) metadata keys.")
        }
        return result
    }
}
