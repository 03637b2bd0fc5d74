import Hummingbird
import PurseCore
import PurseModels
import PursePostgres

/// `GET /healthz` (the process answers) and `GET /readyz` (the database is reachable, its schema
/// current, and a write commits within two seconds: a load balancer stops sending requests to an
/// instance whose writes would hang). Both are public.
struct HealthController {
    let health: DatabaseHealth

    @Sendable func healthz(_: Request, _: PurseRequestContext) -> Response {
        .json(["status": "ok"])
    }

    @Sendable func readyz(_: Request, _: PurseRequestContext) async -> Response {
        switch await health.readiness() {
        case .ready:
            return .json(["status": "ready", "database": "reachable", "schema": "current", "writes": "committing"])
        case .unreachable:
            return .json(
                ["status": "unavailable", "database": "unreachable"],
                status: .serviceUnavailable,
                headers: [.stripeShouldRetry: "true"]
            )
        case .readOnly:
            return .json(
                ["status": "unavailable", "database": "reachable", "schema": "current", "writes": "read_only"],
                status: .serviceUnavailable,
                headers: [.stripeShouldRetry: "true"]
            )
        case .writesNotCommitting:
            return .json(
                ["status": "unavailable", "database": "reachable", "schema": "current", "writes": "not_committing"],
                status: .serviceUnavailable,
                headers: [.stripeShouldRetry: "true"]
            )
        case .schemaBehind(let pending):
            return .json(
                [
                    "status": "unavailable", "database": "reachable", "schema": "behind",
                    "pending_migrations": .array(pending.map { .int($0) }),
                ],
                status: .serviceUnavailable,
                headers: [.stripeShouldRetry: "true"]
            )
        }
    }
}
