import HummingbirdCore
import Logging
import NIOCore

/// Serves each connection with its event loop as the preferred task executor
/// (``EventLoopTaskExecutor``): reading its requests, answering them and writing the responses.
struct ConnectionLoopChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}
