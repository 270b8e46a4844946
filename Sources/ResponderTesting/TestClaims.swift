import CLuaShim

#if canImport(Glibc)
    import Glibc
#endif

/// Which files of a `responder test` run have started, and where: one slot per file holding the
/// process id of the worker that claimed it, in memory the parent shares with its workers (a
/// memfd passed as descriptor ``workerFD``). A worker claims a file just before it runs it and
/// skips a file already claimed; so the parent may give a file that waits in one worker's input
/// to an idle worker too, and the file runs once, on whichever worker reaches it first. When a
/// worker dies, its file's slot says whether the file ran there.
final class TestClaims {
    /// The descriptor a worker finds the claims at.
    static let workerFD: Int32 = 4

    private let bytes: UnsafeMutablePointer<UInt8>
    /// The number of files.
    let count: Int
    /// The parent's descriptor (passed to each worker), or -1 in a worker.
    let fd: Int32

    private init(bytes: UnsafeMutablePointer<UInt8>, count: Int, fd: Int32) {
        self.bytes = bytes
        self.count = count
        self.fd = fd
    }

    /// The parent's claims for `count` files, or nil when shared memory is not available (then
    /// no file is handed to two workers).
    static func create(count: Int) -> TestClaims? {
        var fd: Int32 = -1
        guard let p = luashim_claims_create(max(1, count), &fd) else { return nil }
        return TestClaims(bytes: p, count: max(1, count), fd: fd)
    }

    /// A worker's view of its parent's claims, or nil when it was not given any.
    static func attach() -> TestClaims? {
        var size = 0
        guard let p = luashim_claims_attach(workerFD, &size) else { return nil }
        return TestClaims(bytes: p, count: size, fd: -1)
    }

    deinit {
        luashim_claims_release(bytes, count)
        if fd >= 0 { close(fd) }
    }

    /// Claims file `index` for this process: true when it was not claimed before (run it),
    /// false when another worker has (skip it). An index out of range has nothing to share: true.
    func claim(_ index: Int) -> Bool {
        guard index >= 0 && index < count else { return true }
        return luashim_claim(bytes, index, UInt32(truncatingIfNeeded: getpid())) != 0
    }

    /// The process id of the worker that claimed file `index`, nil when none has.
    func owner(_ index: Int) -> pid_t? {
        guard index >= 0 && index < count else { return nil }
        let pid = luashim_claim_owner(bytes, index)
        return pid == 0 ? nil : pid_t(bitPattern: pid)
    }

    /// Whether file `index` has started somewhere.
    func claimed(_ index: Int) -> Bool { owner(index) != nil }
}
