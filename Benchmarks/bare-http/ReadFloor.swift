import CLibPQ
import Foundation
import Hummingbird
import Synchronization

/// The read floor: the statement of one of Purse's reads, run through libpq the plainest way
/// there is (`PQexecPrepared`, blocking the task's thread until the answer is in) and answered
/// with the row's text, with no authentication, no decoding and no JSON. What one request that
/// reads a row costs Hummingbird and libpq together is the least any server on this stack pays
/// for it, so Purse's reads are judged against it beside `/healthz`.
///
/// Each statement is prepared once per connection, as Purse's driver and the floor's pgbench
/// (`-M prepared`) run theirs: PostgreSQL's CPU per request is then the statement's alone, with
/// an HTTP server sharing the machine, beside the pgbench floor's without one.
final class ReadFloor: Sendable {
    /// A libpq connection that one request at a time uses: taken off `idle` and put back.
    private struct Connection: @unchecked Sendable {
        let handle: OpaquePointer
        /// The statements prepared on it, by name.
        var prepared: Set<String> = []
    }

    private let url: String
    /// Each workload's statements, one per row of its load (the floor's pgbench scripts).
    private let statements: [String: [String]]
    private let idle = Mutex<[Connection]>([])

    /// Reads `file`, a JSON object of workload names to arrays of SQL statements.
    init(url: String, statementsFile file: String) throws {
        self.url = url
        statements = try JSONDecoder().decode([String: [String]].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// Runs statement `index` of `workload` and answers its rows' text, a line per row.
    func answer(workload: String, index: Int) throws -> Response {
        guard let list = statements[workload], list.indices.contains(index) else {
            throw HTTPError(.notFound, message: "no statement \(index) for \(workload)")
        }
        var connection = try takeConnection()
        let name = "\(workload)/\(index)"
        if !connection.prepared.contains(name) {
            try prepare(list[index], as: name, on: connection)
            connection.prepared.insert(name)
        }
        let result = try checked(PQexecPrepared(connection.handle, name, 0, nil, nil, nil, 0), PGRES_TUPLES_OK, on: connection)
        defer { PQclear(result) }
        idle.withLock { $0.append(connection) }
        var body = ByteBuffer()
        for row in 0..<PQntuples(result) {
            for column in 0..<PQnfields(result) {
                if column > 0 { body.writeInteger(UInt8(ascii: "\t")) }
                body.writeBytes(
                    UnsafeRawBufferPointer(
                        start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column))
                    ))
            }
            body.writeInteger(UInt8(ascii: "\n"))
        }
        return Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: body))
    }

    /// Prepares `sql` as `name`; a failure closes the connection, as a failed read does.
    private func prepare(_ sql: String, as name: String, on connection: Connection) throws {
        PQclear(try checked(PQprepare(connection.handle, name, sql, 0, nil), PGRES_COMMAND_OK, on: connection))
    }

    /// `result`, when it has `status`. Otherwise the connection is closed, since a failed call
    /// leaves it in doubt, and the server's message is thrown.
    private func checked(_ result: OpaquePointer?, _ status: ExecStatusType, on connection: Connection) throws -> OpaquePointer {
        guard let result else {
            PQfinish(connection.handle)
            throw HTTPError(.internalServerError, message: "libpq returned no result")
        }
        guard PQresultStatus(result) == status else {
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
