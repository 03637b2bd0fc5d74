import Hummingbird

/// Runs each request with its connection's event loop as the preferred task executor
/// (``EventLoopTaskExecutor``), from routing to the response.
struct ConnectionLoopResponder<Base: HTTPResponder>: HTTPResponder where Base.Context == PurseRequestContext {
    let base: Base

    func respond(to request: Request, context: PurseRequestContext) async throws -> Response {
        try await withTaskExecutorPreference(EventLoopTaskExecutor(context.eventLoop)) {
            try await base.respond(to: request, context: context)
        }
    }
}
