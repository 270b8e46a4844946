import CLuaShim

#if canImport(Glibc)
    import Glibc
#endif

/// How every command ends the process: standard output is flushed first, and output that did
/// not reach it (a full disk, a closed descriptor) is an error, never silence.
enum ProcessExit {
    /// Exits with `status`; when standard output could not be written, says so on standard error
    /// and turns a successful run into exit status 2 (as a report file that cannot be written
    /// does). A failing status is kept.
    static func exit(_ status: Int32) -> Never {
        let failure = luashim_stdout_failed()
        if failure != 0 {
            let reason = failure > 0 ? String(cString: strerror(failure)) : "a write failed"
            Stderr.write("error: cannot write to standard output: \(reason)\n")
            Glibc.exit(status == 0 ? 2 : status)
        }
        Glibc.exit(status)
    }
}
