import Dispatch
import NIOCore
import NIOPosix
import Testing

@testable import PurseServer

@Suite("A request's work stays on its connection's event loop")
struct EventLoopTaskExecutorTests {
    @Test func workRunsOnTheLoopAcrossCallsAndSuspensions() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let onLoop = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            var onLoop = [loop.inEventLoop]
            // A function that must run on the generic executor: it continues on the preferred one.
            onLoop.append(await Self.isOn(loop))
            // Resumed from another thread, as the database reactor resumes a request.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume() }
            }
            onLoop.append(loop.inEventLoop)
            return onLoop
        }
        #expect(onLoop == [true, true, true])
        try await group.shutdownGracefully()
    }

    @concurrent private static func isOn(_ loop: any EventLoop) async -> Bool {
        loop.inEventLoop
    }
}
