import NIOCore

/// A task executor that runs its jobs on one event loop.
///
/// `purse serve` runs Swift concurrency's jobs on NIO's event loops, each as its loop's serial
/// executor. A call into a nonisolated `async` function built without
/// `NonisolatedNonsendingByDefault` (Hummingbird's and NIO's) must leave that executor for the
/// generic one: the task is queued on the same loop again and waits for its next turn, dozens of
/// times per request. With this executor preferred (``ConnectionLoopChildChannel``) such calls go on
/// at once, and a database answer resumes the request on its connection's own loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
