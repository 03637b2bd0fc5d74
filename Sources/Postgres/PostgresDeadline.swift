/// The deadline of the calling task's work on the database (an API request's `--request-timeout`),
/// bound to ``current`` for the work, and honoured by every wait of the driver, with no
/// timer or task of its own:
///
/// - a wait for a pooled connection ends at the deadline with `CancellationError`: nothing was
///   sent;
/// - a statement (or `COMMIT`) still running at the deadline is cancelled on the server
///   (`PQcancel`), and its answer, `query_canceled`, ends it with `CancellationError` (a
///   `COMMIT` with ``PGError/Kind/commitOutcomeUnknown``);
/// - a statement that has not answered even `grace` after the deadline has a server that
///   stopped answering (it vanished without closing the socket, so not even the cancel arrives):
///   its connection is closed and the statement fails as a lost connection, so the caller is not
///   held for the kernel's TCP timeouts.
///
/// A statement that starts after the deadline fails at once with `CancellationError`.
public struct PostgresDeadline: Sendable {
    public let instant: ContinuousClock.Instant
    /// How long after ``instant`` a cancelled statement has to answer before its connection is
    /// given up.
    public let grace: Duration

    /// The calling task's deadline, if it has one.
    @TaskLocal public static var current: PostgresDeadline?

    public init(_ instant: ContinuousClock.Instant, grace: Duration) {
        self.instant = instant
        self.grace = grace
    }
}
