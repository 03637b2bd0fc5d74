import Postgres

extension PostgresConnection {
    /// Queues, to travel with the COMMIT, a write that touches no table: a transactional logical
    /// message (`pg_logical_emit_message`, a few bytes of WAL that no table keeps). The
    /// transaction then commits as every write does, waiting until the synchronous standbys have
    /// all WAL written before it. A transaction that wrote nothing would commit without that
    /// wait, and a transaction id alone would not make it wait either.
    func queueCommitMarker(_ note: String) throws {
        try queryLater("SELECT pg_logical_emit_message(true, 'purse', \(note))::text")
    }
}
