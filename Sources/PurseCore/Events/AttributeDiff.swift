public import PurseModels

/// `previous_attributes` of an update event: the old values of what changed. Nested hashes
/// (metadata, address) list only their changed keys; a key that is new had the value null.
public enum AttributeDiff {
    public static func previousAttributes(from old: JSONValue, to new: JSONValue) -> JSONValue? {
        guard case .object(let before) = old, case .object(let after) = new else {
            return old == new ? nil : old
        }
        var changed = JSONObject()
        for key in before.keys + after.keys.filter({ before[$0] == nil }) {
            let previous = before[key] ?? .null
            let current = after[key] ?? .null
            guard previous != current else { continue }
            if case .object = previous, case .object = current {
                changed[key] = previousAttributes(from: previous, to: current)
            } else {
                changed[key] = previous
            }
        }
        return changed.isEmpty ? nil : .object(changed)
    }
}
