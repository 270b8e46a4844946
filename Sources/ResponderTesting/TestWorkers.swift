import CLuaShim
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// One file to run.
package struct TestFile: Sendable {
    package let path: String
    /// A plain script (not `*_spec.lua`): one test, passes when it ends without error, unless it
    /// registers tests of its own.
    let plain: Bool
}

/// The worker side: reads files from stdin, runs each in a fresh state, streams records to fd 3.
package enum TestWorker {
    package static func run(options: TestRunOptions) -> Never {
        // Code the time limit cannot interrupt ends this worker (exit 3): the parent learns why
        // from a last `F` line (see TestProtocol) and goes on with the other files.
        luashim_set_hard_exit_report(TestProtocol.resultFD, "F\t")
        let crashTrigger = getenv("RESPONDER_TEST_CRASH_WORKER_ON").map { String(cString: $0) }
        let claims = TestClaims.attach()
        // the parent hands a file to two workers only when both have said they see the claims
        if claims != nil, !TestProcess.writeAll(TestProtocol.resultFD, Array("A\n".utf8)) { exit(0) }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                // `S<index>\t<path>` or `P<index>\t<path>` (see TestProtocol)
                guard let tab = line.firstIndex(of: "\t"), tab > line.startIndex else { continue }
                let plain = line.hasPrefix("P")
                let path = String(line[line.index(after: tab)...])
                guard !path.isEmpty else { continue }
                if let index = Int(line[line.index(after: line.startIndex)..<tab]), let claims, !claims.claim(index) {
                    // another worker has run it: skipped
                    if !TestProcess.writeAll(TestProtocol.resultFD, Array("K\n".utf8)) { exit(0) }
                    continue
                }
                // Testing aid: lets the CLI tests check that a crashed worker costs one file only.
                if let crash = crashTrigger, path.contains(crash) { kill(getpid(), SIGKILL) }
                TestFramework.runFile(
                    path, plain: plain, options: options,
                    emit: { record in ResultLines.add(TestProtocol.encodeBytes(record)) },
                    coverage: { data in
                        let text = data.wireLines().map { $0 + "\n" }.joined()
                        ResultLines.add(Array(text.utf8))
                    })
                Console.flush()
                if !ResultLines.end() { exit(0) }
                continue
            }
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: chunk[0..<n])
        }
        Console.flush()
        exit(0)
    }
}

/// The parent side: a pool of worker processes fed one file at a time. A worker that dies
/// (crash, kill) costs only the file it was running, which is reported as an error; the
/// remaining files go to a fresh worker.
package final class TestWorkerPool {
    private struct Worker {
        let pid: pid_t
        let input: Int32
        let output: Int32
        var buffer: [UInt8] = []
        /// The files handed over and not yet finished, in order: the first is running, the others
        /// wait in the worker's input so that it never waits for the parent between files.
        var queue: [Int] = []
        var current: Int? { queue.first }
        /// When the current file started (monotonic seconds): handed over, or its predecessor ended.
        var started: Double = 0
        /// The last file it finished was short: it gets the next file before it asks (see `run`).
        var quick = true
        /// A worker's `F` line: why it is about to exit.
        var lastWords: String?
        /// The parent stopped it (the file ran far past the time limit).
        var killed = false
        /// It said it sees the run's claims (an `A` line): a file it holds may be handed to
        /// another worker too, and it may take one.
        var claiming = false
    }

    /// A file that ran for less than this many seconds counts as short (see ``run``).
    static let quickFile = 0.05

    let jobs: Int
    let workerArguments: [String]
    let stdoutToStderr: Bool
    private let executable = TestProcess.executablePath()
    private let environment = TestProcess.environment()

    /// Seconds a file may run before the parent stops its worker (the worker's own time limit
    /// plus a margin; normally the worker ends it first).
    let hardLimit: Double

    package init(jobs: Int, workerArguments: [String], stdoutToStderr: Bool, timeoutSeconds: Double) {
        self.hardLimit = timeoutSeconds + 10
        self.jobs = jobs
        self.workerArguments = workerArguments
        self.stdoutToStderr = stdoutToStderr
    }

    /// Runs all files; `record` gets each result with its file index, `done` each finished file,
    /// `coverage` each coverage line (`C…`) a worker sent. `stop` is asked after each finished
    /// file: when it answers true, no further file starts (busted's `--no-keep-going`); files not
    /// started are not reported.
    ///
    /// A worker that just finished a short file (under ``quickFile`` seconds) gets up to
    /// `lookahead` files at a time (the one it runs and the next, waiting in its input), so that it
    /// does not wait for the parent between files (13 % of a run of 500 small spec files). A
    /// worker with nothing left to run takes a file still waiting in another's input as well
    /// (behind a long file there): ``TestClaims`` let it run on whichever worker reaches it first,
    /// and the other skips it. Pass 1 when `stop` may answer true, so that no file is already
    /// waiting in a worker when the run stops.
    package func run(
        _ files: [TestFile], record: (Int, TestRecord) -> Void, done: (Int) -> Void,
        coverage: (String) -> Void = { _ in }, stop: () -> Bool = { false }, lookahead: Int = 2
    ) {
        TestProcess.ignoreBrokenPipes()
        var next = 0
        /// Files handed to a worker that died before starting them: handed out again first.
        var returned: [Int] = []
        var stopped = false
        var workers: [Worker] = []
        var hasWork: Bool { !stopped && (!returned.isEmpty || next < files.count) }
        // which files started, shared with the workers (only when files wait in workers' inputs)
        let claims = lookahead > 1 ? TestClaims.create(count: files.count) : nil
        /// Files handed to a second worker (at most once each).
        var doubled = Set<Int>()

        func spawnWorker() -> Worker? {
            guard
                let child = TestProcess.spawn(
                    executable, [executable, "test", "--worker"] + workerArguments,
                    pipeInput: true, captured: [TestProtocol.resultFD],
                    redirects: (stdoutToStderr ? [(2, 1)] : []) + (claims.map { [($0.fd, TestClaims.workerFD)] } ?? []),
                    environment: environment)
            else { return nil }
            return Worker(pid: child.pid, input: child.input, output: child.outputs[0])
        }

        /// The next file to hand out (call only when `hasWork`): a returned one first.
        func takeNext() -> Int {
            if !returned.isEmpty { return returned.removeFirst() }
            next += 1
            return next - 1
        }

        /// Hands files to `w` until it holds `depth`; false when it holds none (no work left).
        func assign(_ w: inout Worker, depth: Int = 1) -> Bool {
            var lines = ""
            while w.queue.count < max(1, depth), hasWork {
                let i = takeNext()
                if w.queue.isEmpty { w.started = TestFramework.now() }
                w.queue.append(i)
                lines += line(i)
            }
            if !lines.isEmpty { _ = TestProcess.writeAll(w.input, Array(lines.utf8)) }
            return !w.queue.isEmpty
        }

        func line(_ i: Int) -> String { (files[i].plain ? "P" : "S") + "\(i)\t" + files[i].path + "\n" }

        /// Whether another live worker than `wi` holds file `i`.
        func heldElsewhere(_ i: Int, than wi: Int, removed: Set<Int>) -> Bool {
            workers.indices.contains { $0 != wi && !removed.contains($0) && workers[$0].queue.contains(i) }
        }

        /// Gives the idle worker `wi` a file waiting behind another worker's current one (not yet
        /// claimed, not given twice already); false when there is none.
        func takeWaiting(into wi: Int, removed: Set<Int>) -> Bool {
            guard let claims, workers[wi].claiming else { return false }
            for v in workers.indices where v != wi && !removed.contains(v) && !workers[v].killed && workers[v].claiming
            {
                for i in workers[v].queue.dropFirst() where !claims.claimed(i) && !doubled.contains(i) {
                    doubled.insert(i)
                    workers[wi].started = TestFramework.now()
                    workers[wi].queue.append(i)
                    _ = TestProcess.writeAll(workers[wi].input, Array(line(i).utf8))
                    return true
                }
            }
            return false
        }

        /// Whether a file waits behind another worker's current one that a worker started now
        /// could take (see ``takeWaiting``, which it calls once it sees the claims). The other
        /// worker need not have said yet that it sees them: it will have by then, as a rule
        /// (requiring it here lost the race when a worker died before the other's `A` line came,
        /// under load, and the waiting file then followed the long one; a CI run failed so).
        func someFileWaits(removed: Set<Int>) -> Bool {
            guard let claims else { return false }
            return workers.indices.contains { v in
                !removed.contains(v) && !workers[v].killed
                    && workers[v].queue.dropFirst().contains { !claims.claimed($0) && !doubled.contains($0) }
            }
        }

        func retire(_ w: Worker) {
            close(w.input)
            close(w.output)
            _ = TestProcess.wait(w.pid)
        }

        let count = max(1, min(jobs, files.count))
        // one file each first, so that a short run still spreads over all workers
        for _ in 0..<count {
            guard var w = spawnWorker() else { break }
            if assign(&w) { workers.append(w) } else { retire(w) }
        }
        for wi in workers.indices { _ = assign(&workers[wi], depth: lookahead) }
        if workers.isEmpty && next < files.count {
            // Could not start any worker: report every file.
            for i in next..<files.count {
                record(
                    i,
                    TestRecord(
                        file: files[i].path, name: files[i].path, status: .error,
                        message: "could not start a test worker (\(String(cString: strerror(errno))))",
                        location: files[i].path + ":0"))
                done(i)
            }
            return
        }

        var chunk = [UInt8](repeating: 0, count: 65536)
        while !workers.isEmpty {
            var pfds = workers.map { pollfd(fd: $0.output, events: Int16(POLLIN), revents: 0) }
            let r = poll(&pfds, nfds_t(pfds.count), 1000)
            if r < 0 {
                if errno == EINTR { continue }
                break
            }
            let now = TestFramework.now()
            // Over the file time limit: a worker that did not end its file itself, and a worker
            // started to take a waiting file that never says it sees the claims (its `A` line),
            // which would otherwise be waited for forever. Stopped (its pipe then reports EOF).
            for wi in workers.indices
            where !workers[wi].killed && now - workers[wi].started > hardLimit
                && (workers[wi].current != nil || (workers[wi].queue.isEmpty && !workers[wi].claiming))
            {
                workers[wi].killed = true
                kill(workers[wi].pid, SIGKILL)
            }
            var replacements: [Worker] = []
            var removed = Set<Int>()
            for (wi, p) in pfds.enumerated() where p.revents != 0 {
                let n = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n > 0 {
                    workers[wi].buffer.append(contentsOf: chunk[0..<n])
                    // Complete lines.
                    var from = workers[wi].buffer.startIndex
                    defer { workers[wi].buffer.removeSubrange(..<from) }
                    while let nl = workers[wi].buffer[from...].firstIndex(of: 10) {
                        let line = workers[wi].buffer[from..<nl]
                        from = nl + 1
                        let kind = line.first ?? 0
                        if line.count == 1 && kind == UInt8(ascii: "A") {
                            workers[wi].claiming = true
                            // a worker started with nothing to run (to replace one that died)
                            // takes a file waiting behind another's, or goes
                            if workers[wi].queue.isEmpty && !takeWaiting(into: wi, removed: removed) {
                                retire(workers[wi])
                                removed.insert(wi)
                                break
                            }
                            continue
                        }
                        guard let cur = workers[wi].current else { continue }
                        if line.count == 1 && (kind == UInt8(ascii: "E") || kind == UInt8(ascii: "K")) {
                            // E: the file is done; K: skipped, another worker claimed it first
                            let ended = TestFramework.now()
                            workers[wi].queue.removeFirst()
                            if kind == UInt8(ascii: "E") {
                                workers[wi].quick = ended - workers[wi].started < Self.quickFile
                                done(cur)
                                if stop() { stopped = true }
                            }
                            workers[wi].started = ended
                            if !assign(&workers[wi], depth: workers[wi].quick ? lookahead : 1)
                                && !takeWaiting(into: wi, removed: removed)
                            {
                                retire(workers[wi])
                                removed.insert(wi)
                                break
                            }
                        } else if kind == UInt8(ascii: "C") {
                            coverage(String(decoding: line, as: UTF8.self))
                        } else if kind == UInt8(ascii: "F"), line.dropFirst().first == 9 {
                            workers[wi].lastWords = TestProtocol.unescape(
                                String(decoding: line.dropFirst(2), as: UTF8.self))
                        } else if let rec = TestProtocol.decode(line, file: files[cur].path) {
                            record(cur, rec)
                        }
                    }
                    continue
                }
                // EOF or read error: the worker is gone.
                let w = workers[wi]
                close(w.input)
                close(w.output)
                let how = TestProcess.wait(w.pid)
                removed.insert(wi)
                // Its current file ran there unless the claims say otherwise: claimed by another
                // worker (which reports it), or not claimed yet and held by another worker (which
                // runs it) or handed out twice (it goes back to be handed out again, once more).
                var ranHere = true
                var requeued: Int?
                if let cur = w.current, let claims {
                    if let owner = claims.owner(cur) {
                        ranHere = owner == w.pid
                    } else if heldElsewhere(cur, than: wi, removed: removed) {
                        ranHere = false
                    } else if doubled.contains(cur) {
                        doubled.remove(cur)
                        requeued = cur
                        ranHere = false
                    }
                }
                if ranHere, let cur = w.current {
                    let path = files[cur].path
                    let message: String
                    // a worker that left last words or was killed ran out of time or memory
                    let limit = w.lastWords != nil || w.killed
                    if let words = w.lastWords {
                        message = words + TestRecord.limitNote
                    } else if w.killed {
                        message =
                            "time limit exceeded: \(path) ran for more than \(Int(hardLimit)) s and its worker was stopped"
                            + TestRecord.limitNote
                    } else {
                        message =
                            "the test worker crashed (\(how)) while running \(path); the other files were not affected"
                    }
                    var failure = TestRecord(
                        file: path, name: path, status: .error, message: message,
                        location: TestFramework.location(in: message) ?? path + ":0")
                    failure.limit = limit
                    record(cur, failure)
                    done(cur)
                    // an error like any other: --no-keep-going stops here too
                    if stop() { stopped = true }
                }
                // the files it had not started go to another worker, in their order (but not those
                // another worker holds or has started)
                returned =
                    w.queue.dropFirst().filter {
                        claims?.claimed($0) != true && !heldElsewhere($0, than: wi, removed: removed)
                    } + returned
                if let requeued { returned.insert(requeued, at: 0) }
                if hasWork, var fresh = spawnWorker() {
                    if assign(&fresh) { replacements.append(fresh) } else { retire(fresh) }
                } else if w.current != nil, !stopped, someFileWaits(removed: removed), var fresh = spawnWorker() {
                    // nothing left to hand out, but a file waits behind a long one elsewhere: a
                    // fresh worker takes it once it says it sees the claims (its `A` line). (Not
                    // for a worker that died before running anything: no chain of replacements.)
                    fresh.started = now
                    replacements.append(fresh)
                }
            }
            if !removed.isEmpty {
                workers = workers.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
            }
            workers += replacements
            if workers.isEmpty && hasWork, var fresh = spawnWorker() {
                if assign(&fresh) { workers.append(fresh) } else { retire(fresh) }
            }
        }
        while hasWork {
            let i = takeNext()
            record(
                i,
                TestRecord(
                    file: files[i].path, name: files[i].path, status: .error,
                    message: "could not start a test worker", location: files[i].path + ":0"))
            done(i)
        }
    }
}
