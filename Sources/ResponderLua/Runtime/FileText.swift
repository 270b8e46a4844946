#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading whole files without Foundation (keeps start-up fast).
public enum FileText {
    /// Why a file could not be read.
    public enum Problem: Error, Equatable, Sendable {
        case missing, directory, unreadable(String)
        /// Longer than the reader allows: the size in bytes, and the allowance.
        case tooLarge(Int, Int)
    }

    /// Why the script at `path` cannot be loaded, or nil when it is a regular file that opens for
    /// reading (nothing is read: a read error is reported by the load itself). Opened without
    /// blocking, so that a FIFO without a writer is refused instead of waited for, as the script
    /// loader (`luashim_load_file`) refuses what is not a regular file.
    public static func problem(_ path: String) -> Problem? {
        switch openRegular(path) {
        case .failure(let problem): return problem
        case .success(let (fd, _)):
            close(fd)
            return nil
        }
    }

    /// Opens `path` for reading when it is a regular file (without blocking: a device such as
    /// /dev/zero never ends and a FIFO may never open), with its status.
    private static func openRegular(_ path: String) -> Result<(Int32, stat), Problem> {
        var st = stat()
        if stat(path, &st) != 0 {
            return .failure(
                errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(String(cString: strerror(errno))))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .failure(.directory) }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if fd < 0 { return .failure(.unreadable(String(cString: strerror(errno)))) }
        if fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != S_IFREG {
            close(fd)
            return .failure(.unreadable("not a regular file"))
        }
        return .success((fd, st))
    }

    /// Reads the bytes of `path` (a regular file): straight into the result's storage, sized from
    /// the file's length (no zeroed read buffer: its pages would cost an empty run page faults).
    public static func read(_ path: String, maxBytes: Int = Int.max) -> Result<[UInt8], Problem> {
        let fd: Int32
        let st: stat
        switch openRegular(path) {
        case .failure(let problem): return .failure(problem)
        case .success(let opened): (fd, st) = opened
        }
        guard let f = fdopen(fd, "rb") else {
            close(fd)
            return .failure(.unreadable(String(cString: strerror(errno))))
        }
        defer { fclose(f) }
        // (a sparse file takes no room on disk and any length: its size is checked, not trusted
        // to fit, and so is what a growing file adds)
        if Int(st.st_size) > maxBytes { return .failure(.tooLarge(Int(st.st_size), maxBytes)) }
        // one read of one byte more than the length said ends a file that did not grow
        var bytes = [UInt8]()
        var size = max(Int(st.st_size), 0) + 1
        while true {
            var got = 0
            let chunk = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                got = fread(buffer.baseAddress, 1, size, f)
                count = got
            }
            if got < size && ferror(f) != 0 { return .failure(.unreadable(String(cString: strerror(errno)))) }
            if bytes.count + chunk.count > maxBytes { return .failure(.tooLarge(bytes.count + chunk.count, maxBytes)) }
            if bytes.isEmpty { bytes = chunk } else { bytes.append(contentsOf: chunk) }
            if got < size { break }
            size = 1 << 16
        }
        return .success(bytes)
    }

    /// True when `path` names an existing regular file.
    public static func isFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// True when `path` names an existing directory.
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Writes `text` to `path`, replacing it. Returns false on failure.
    @discardableResult
    public static func write(_ text: String, to path: String) -> Bool {
        guard let f = fopen(path, "wb") else { return false }
        var t = text
        let wrote = t.withUTF8 { fwrite($0.baseAddress, 1, $0.count, f) == $0.count }
        // (what fwrite buffered is written by fflush: a full disk is only seen there; the report
        // went to /dev/full with exit 0: found by an adversary probe)
        let flushed = fflush(f) == 0
        let closed = fclose(f) == 0
        return wrote && flushed && closed
    }

    /// Writes `text` to `path` the way files a test suite names are written (snapshots, the
    /// specs `explore` writes): never through a symbolic link (in the file's name or, with
    /// `guardedFolder`, that folder's), only to a regular file, and over an existing non-empty
    /// file only when it starts with `header`. A repository could ship
    /// `__snapshots__/x_spec.snap -> ~/.bashrc`, and a plain `responder test` replaced that file
    /// (found by an adversary probe). Returns nil when written, else why not.
    public static func writeGuarded(
        _ bytes: [UInt8], to path: String, header: String? = nil, guardedFolder: String? = nil
    ) -> String? {
        if let folder = guardedFolder, isSymbolicLink(folder) {
            return "\(folder) is a symbolic link (refused: it could point anywhere)"
        }
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        if fd < 0 {
            if errno == ELOOP { return "it is a symbolic link (refused: it could point anywhere)" }
            if errno == ENXIO { return "it is not a regular file" }
            return String(cString: strerror(errno))
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return "it is not a regular file"
        }
        if let header, st.st_size > 0 {
            var start = [UInt8](repeating: 0, count: header.utf8.count)
            let n = pread(fd, &start, start.count, 0)
            guard n == start.count, start.elementsEqual(header.utf8) else {
                close(fd)
                return "it exists and is not a file this tool wrote (it does not start with '\(header)')"
            }
        }
        guard ftruncate(fd, 0) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            return why
        }
        let failure: String? = bytes.withUnsafeBufferPointer { buf in
            var offset = 0
            while offset < buf.count {
                #if canImport(Glibc)
                    let n = Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
                #else
                    let n = Darwin.write(fd, buf.baseAddress! + offset, buf.count - offset)
                #endif
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += n
            }
            return nil
        }
        if close(fd) != 0, failure == nil { return String(cString: strerror(errno)) }
        return failure
    }

    /// True when `path` itself (not what it points to) is a symbolic link.
    public static func isSymbolicLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// `path` with links resolved, absolute; nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The folder part of a path (`.` when none).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }
    /// The line that says why the script at `path` cannot be read: `error: cannot open 'PATH': WHY`.
    public static func openError(_ path: String, _ problem: FileText.Problem) -> String {
        "error: cannot open '\(path)': \(problem)\n"
    }
}

extension FileText.Problem: CustomStringConvertible {
    /// Why, as an error line says it: "no such file", "is a directory", "cannot read (…)",
    /// "too large (… bytes; … allowed)".
    public var description: String {
        switch self {
        case .missing: "no such file"
        case .directory: "is a directory"
        case .unreadable(let reason): "cannot read (\(reason))"
        case .tooLarge(let size, let allowed): "too large (\(size) bytes; \(allowed) allowed)"
        }
    }
}
