import CLibPQ
import Foundation
import Hummingbird
import Synchronization

/// The read floor: the statement of one of Purse's reads, run through libpq the plainest way
/// there is (`PQexec`, blocking the task's thread until the answer is in) and answered with the
/// row's text, with no authentication, no decoding and no JSON. What one request that reads a
/// row costs Hummingbird and libpq together is the least any server on this stack pays for it,
/// so Purse's reads are judged against it beside `/healthz`.
final class ReadFloor: Sendable {
    /// A libpq connection that one request at a time uses: taken off `idle` and put back.
    private struct Connection: @unchecked Sendable {
        let handle: OpaquePointer
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
        let connection = try takeConnection()
        guard let result = PQexec(connection.handle, list[index]) else {
            PQfinish(connection.handle)
            throw HTTPError(.internalServerError, message: "libpq returned no result")
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else {
            let message = String(cString: PQresultErrorMessage(result))
            PQfinish(connection.handle)
            throw HTTPError(.internalServerError, message: message)
        }
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
