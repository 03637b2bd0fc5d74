import NIOCore

/// A task executor that runs its jobs on one event loop.
///
/// Preferred by each HTTP connection's task (``ConnectionLoopChildChannel``), so a request is
/// read, handled and answered on its connection's loop: calls into nonisolated `async` functions
/// go on in place, and a database answer resumes the request there, instead of each crossing to
/// Swift's cooperative pool and back. Under the benchmark's reads the pool's threads take under
/// 1 % of `purse serve`'s CPU samples (Benchmarks/README.md).
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
