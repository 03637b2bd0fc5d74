/// A notification a `LISTEN`ing connection received (`NOTIFY channel, 'payload'`).
public struct PostgresNotification: Sendable, Hashable {
    public let channel: String
    public let payload: String
    /// The server process that sent it.
    public let senderPID: Int32
}
