import Postgres

/// The connection of an enclosing transaction (``PostgresDatabase/enclosingTransaction(retryingConflicts:_:)``),
/// kept in a task-local for the units of work the task asks for inside it.
///
/// A connection is not `Sendable`, and a task-local's value must be: child tasks read it too, and
/// could use the connection at the same time as their parent. So this box is `@unchecked
/// Sendable` and checks instead, at run time, that only the task that opened the transaction
/// takes the connection; another gets an error, never the connection.
final class EnclosingTransaction: @unchecked Sendable {
    private let connection: PostgresConnection
    /// Compared, never run: the owner is alive while the box is in its task-local scope.
    private let owner: UnsafeCurrentTask?

    init(_ connection: PostgresConnection) {
        self.connection = connection
        self.owner = withUnsafeCurrentTask { $0 }
    }

    /// The connection, for the task that opened the transaction.
    func connectionForCurrentTask() throws -> PostgresConnection {
        let isOwner = withUnsafeCurrentTask { $0 == owner }
        guard isOwner else {
            throw PGError(
                .server, message: "A unit of work ran in a child task of an enclosing transaction, which only its own task may use"
            )
        }
        return connection
    }
}
