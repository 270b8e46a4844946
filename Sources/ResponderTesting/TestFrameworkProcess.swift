import ResponderLua

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Child processes without Foundation: what `responder test` uses for its isolated workers,
/// and what the CLI tests use to run the built binary.
public enum TestProcess {
    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public init(waitStatus s: Int32) {
            if s & 0x7f == 0 { self = .exited((s >> 8) & 0xff) } else { self = .signalled(s & 0x7f) }
        }

        public var description: String {
            switch self {
            case .exited(let c): return "exit status \(c)"
            case .signalled(let s):
                let name = strsignal(s).map { String(cString: $0) } ?? "signal"
                return "signal \(s) (\(name))"
            }
        }
    }

    /// A running child with the pipe ends the parent keeps.
    public struct Child: Sendable {
        public let pid: pid_t
        /// Write end connected to the child's standard input (-1 when not piped).
        public let input: Int32
        /// Read ends, in the order of `captured` given to `spawn`.
        public let outputs: [Int32]
    }

    /// The path of the running executable.
    public static func executablePath() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        if n > 0 {
            return buf[0..<n].withUnsafeBufferPointer { p in
                String(decoding: UnsafeRawBufferPointer(p).bindMemory(to: UInt8.self), as: UTF8.self)
            }
        }
        return CommandLine.arguments.first ?? "responder"
    }

    /// This process's environment (from /proc, avoiding the unsafe `environ` global).
    public static func environment() -> [String] {
        guard case .success(let bytes) = FileText.read("/proc/self/environ") else { return [] }
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Spawns `path` with `arguments` (argv[0] included). `pipeInput` connects a pipe to fd 0;
    /// each fd in `captured` gets a pipe whose read end is returned; `redirects` are (from, to)
    /// dup2 pairs applied in the child after the pipes (e.g. (2, 1) sends stdout to stderr).
    public static func spawn(
        _ path: String, _ arguments: [String], pipeInput: Bool, captured: [Int32],
        redirects: [(Int32, Int32)] = [], environment: [String]? = nil
    ) -> Child? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        var input: Int32 = -1
        func makePipe() -> (Int32, Int32)? {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return nil }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            return (fds[0], fds[1])
        }
        func cleanup() {
            for fd in parentEnds + childEnds { close(fd) }
        }
        if pipeInput {
            guard let (r, w) = makePipe() else { return nil }
            input = w
            parentEnds.append(w)
            childEnds.append(r)
            posix_spawn_file_actions_adddup2(&actions, r, 0)
        }
        var outputs: [Int32] = []
        for fd in captured {
            guard let (r, w) = makePipe() else {
                cleanup()
                return nil
            }
            outputs.append(r)
            parentEnds.append(r)
            childEnds.append(w)
            posix_spawn_file_actions_adddup2(&actions, w, fd)
        }
        for (from, to) in redirects { posix_spawn_file_actions_adddup2(&actions, from, to) }
        let env = environment ?? self.environment()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, &argv, &envp)
        for fd in childEnds { close(fd) }
        if rc != 0 {
            for fd in parentEnds { close(fd) }
            return nil
        }
        return Child(pid: pid, input: input, outputs: outputs)
    }

    /// Waits for a child.
    public static func wait(_ pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(255) }
        }
        return Termination(waitStatus: status)
    }

    /// Writes all of `bytes` to `fd` (false when the reader is gone).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Ignores SIGPIPE so a dead child never kills the parent that writes to it.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The result of `run`.
    public struct Output: Sendable {
        public var termination: Termination
        public var stdout: String
        public var stderr: String
        public var status: Int32 {
            switch termination {
            case .exited(let c): return c
            case .signalled(let s): return 128 + s
            }
        }
    }

    /// Runs a program to completion, capturing stdout and stderr (used by the CLI tests and for
    /// graphviz); `onSpawn` gets the child's process id once it runs.
    public static func run(
        _ path: String, _ arguments: [String], input: String? = nil,
        environment: [String]? = nil, onSpawn: ((pid_t) -> Void)? = nil
    ) -> Output? {
        ignoreBrokenPipes()
        guard
            let child = spawn(
                path, [path] + arguments, pipeInput: true, captured: [1, 2],
                environment: environment)
        else { return nil }
        onSpawn?(child.pid)
        if let input { writeAll(child.input, Array(input.utf8)) }
        close(child.input)
        var buffers: [[UInt8]] = [[], []]
        var open = child.outputs
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var pfds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let r = poll(&pfds, nfds_t(pfds.count), -1)
            if r < 0 {
                if errno == EINTR { continue }
                break
            }
            for p in pfds where p.revents != 0 {
                let n = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    let i = child.outputs.firstIndex(of: p.fd)!
                    buffers[i].append(contentsOf: chunk[0..<n])
                } else if n == 0 || errno != EINTR {
                    close(p.fd)
                    open.removeAll { $0 == p.fd }
                }
            }
        }
        let t = wait(child.pid)
        return Output(
            termination: t, stdout: String(decoding: buffers[0], as: UTF8.self),
            stderr: String(decoding: buffers[1], as: UTF8.self))
    }
}
