import CLibPQ
import Foundation
import Hummingbird
import Synchronization

/// The read and write floors: the statements one of Purse's requests sends, run through libpq
/// the plainest way there is (`PQexecPrepared`, one statement per round trip, blocking the
/// task's thread until each answer is in), with no authentication, no decoding and no JSON.
/// What one request that runs those statements costs Hummingbird and libpq together is the least
/// any server on this stack pays for it, so Purse's requests are judged against it beside
/// `/healthz`.
///
/// Each statement is prepared once per connection, as Purse's driver and the floor's pgbench
/// (`-M prepared`) run theirs: PostgreSQL's CPU per request is then the statements' alone, with
/// an HTTP server sharing the machine, beside the pgbench floor's without one.
///
/// A write's statements name the ids it creates as `'prefix' || $1 || 'suffix'`, as the pgbench
/// floor's `:n`. The first request of an operation draws `$1` at random and answers it as JSON,
/// `{"token": "..."}`, so the operation's later requests can pass it back (`?token=`); a request
/// with no `$1` answers its last statement's rows as text, a line per row.
final class SQLFloor: Sendable {
    /// A libpq connection that one request at a time uses: taken off `idle` and put back.
    private struct Connection: @unchecked Sendable {
        let handle: OpaquePointer
        /// The statements prepared on it, by name.
        var prepared: Set<String> = []
    }

    private let url: String
    /// Each workload's statements: per row of its load, per request of an operation, in order.
    private let statements: [String: [[[String]]]]
    private let idle = Mutex<[Connection]>([])

    /// Reads `file`, a JSON object of workload names to rows of requests of SQL statements.
    init(url: String, statementsFile file: String) throws {
        self.url = url
        statements = try JSONDecoder().decode([String: [[[String]]]].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// Runs request `request` of `workload`'s row `index`, with `token` as `$1` where its
    /// statements take one (drawn when nil).
    func answer(workload: String, index: Int, request: Int, token: String?) throws -> Response {
        guard let rows = statements[workload], rows.indices.contains(index), rows[index].indices.contains(request) else {
            throw HTTPError(.notFound, message: "no request \(request) of row \(index) for \(workload)")
        }
        let list = rows[index][request]
        let takesToken = list.contains { $0.contains("$1") }
        let token = takesToken ? token ?? String(UInt64.random(in: 1...9_000_000_000_000_000_000)) : nil
        var connection = try takeConnection()
        var last: OpaquePointer?
        defer { PQclear(last) }
        for (number, sql) in list.enumerated() {
            let name = "\(workload)/\(index)/\(request)/\(number)"
            if !connection.prepared.contains(name) {
                try prepare(sql, as: name, on: connection)
                connection.prepared.insert(name)
            }
            PQclear(last)
            last = try execute(name, token: sql.contains("$1") ? token : nil, on: connection)
        }
        idle.withLock { $0.append(connection) }
        var body = ByteBuffer()
        if let token {
            body.writeString(#"{"token":"\#(token)"}"#)
        } else if let last {
            for row in 0..<PQntuples(last) {
                for column in 0..<PQnfields(last) {
                    if column > 0 { body.writeInteger(UInt8(ascii: "\t")) }
                    body.writeBytes(
                        UnsafeRawBufferPointer(start: PQgetvalue(last, row, column), count: Int(PQgetlength(last, row, column)))
                    )
                }
                body.writeInteger(UInt8(ascii: "\n"))
            }
        }
        let type = token == nil ? "text/plain" : "application/json"
        return Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: body))
    }

    /// Prepares `sql` as `name`; a failure closes the connection, as a failed statement does.
    private func prepare(_ sql: String, as name: String, on connection: Connection) throws {
        PQclear(try checked(PQprepare(connection.handle, name, sql, 0, nil), on: connection))
    }

    /// Runs the prepared statement `name`, with `token` as its one parameter when given.
    private func execute(_ name: String, token: String?, on connection: Connection) throws -> OpaquePointer {
        guard let token else {
            return try checked(PQexecPrepared(connection.handle, name, 0, nil, nil, nil, 0), on: connection)
        }
        return try token.withCString { value in
            var values: [UnsafePointer<CChar>?] = [value]
            return try checked(PQexecPrepared(connection.handle, name, 1, &values, nil, nil, 0), on: connection)
        }
    }

    /// `result`, when it succeeded. Otherwise the connection is closed, since a failed call
    /// leaves it in doubt (PostgreSQL rolls back its open transaction), and the server's message
    /// is thrown.
    private func checked(_ result: OpaquePointer?, on connection: Connection) throws -> OpaquePointer {
        guard let result else {
            PQfinish(connection.handle)
            throw HTTPError(.internalServerError, message: "libpq returned no result")
        }
        guard [PGRES_TUPLES_OK, PGRES_COMMAND_OK].contains(PQresultStatus(result)) else {
            let message = String(cString: PQresultErrorMessage(result))
            PQclear(result)
            PQfinish(connection.handle)
            throw HTTPError(.internalServerError, message: message)
        }
        return result
    }

    private func takeConnection() throws -> Connection {
        if let connection = idle.withLock({ $0.popLast() }) { return connection }
        guard let handle = PQconnectdb(url) else {
            throw HTTPError(.internalServerError, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw HTTPError(.internalServerError, message: message)
        }
        return Connection(handle: handle)
    }
}
