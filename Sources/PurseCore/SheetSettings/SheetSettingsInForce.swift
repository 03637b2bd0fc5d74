public import PurseModels

/// Sheet settings with their JSON, made once when they are read: the cache keeps both, for
/// every elements session and every `/current` sends the settings, and they change rarely.
public struct SheetSettingsInForce: Sendable {
    public let settings: CustomerSheetSettings
    /// `settings` as the API writes them.
    public let json: JSONValue

    init(_ settings: CustomerSheetSettings) throws {
        self.settings = settings
        json = try JSONValueEncoder().encode(settings)
    }
}
