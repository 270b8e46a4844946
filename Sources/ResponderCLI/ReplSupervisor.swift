import ResponderLua
import ResponderREPL
import ResponderTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `responder repl` runs its session in a child process (`repl --session`) and waits for it.
///
/// A REPL entry that runs past `--timeout` or ignores Ctrl-C inside code the limit hook cannot
/// reach (a long C function such as a backtracking `string.find`, a looping `__gc`) cannot be
/// stopped inside the process that runs it. The session's timer then ends that process with
/// `restartStatus` (or `preloadStatus` while `--load FILE` runs) after printing what ran; the
/// supervisor says what was lost and starts a fresh session on the same terminal and input.
/// Everything else (exit status, output, signals) passes through unchanged.
enum ReplSupervisor {
    /// The session ended code it could not stop: start a new one (with `--load FILE` again).
    static let restartStatus: Int32 = ReplSession.restartStatus
    /// Same, while `--load FILE` was running: the new session does not load it again.
    static let preloadStatus: Int32 = 76

    /// Called first in the session process: Ctrl-C interrupts code again (the supervisor ignores
    /// it), and code that cannot be stopped ends the process with the status that asks the
    /// supervisor for a new session (`ReplSession` switches to its own restart status, the same 75, after the preload).
    static func beginSession(preloading: Bool) {
        signal(SIGINT, SIG_DFL)
        LuaRuntime.setHardExitStatus(preloading ? preloadStatus : restartStatus)
    }

    /// Runs sessions until one ends normally; returns its exit status.
    static func run(sessionArguments: [String], load: String?) -> Int32 {
        let executable = TestProcess.executablePath()
        var withLoad = true
        // Ctrl-C belongs to the session (both processes share the terminal).
        signal(SIGINT, SIG_IGN)
        while true {
            var args = [executable, "repl", "--session"] + sessionArguments
            if withLoad, let load { args += ["--load", load] }
            guard let child = TestProcess.spawn(executable, args, pipeInput: false, captured: []) else {
                Console.error("error: cannot start the REPL session (\(String(cString: strerror(errno))))\n")
                return 1
            }
            switch TestProcess.wait(child.pid) {
            case .exited(restartStatus):
                Console.error(
                    "note: the REPL session was restarted: that code could not be stopped. "
                        + "Globals, the tree, traces and warnings were lost"
                        + (withLoad && load != nil ? "; \(load!) was loaded again.\n" : ".\n"))
            case .exited(preloadStatus):
                Console.error(
                    "note: the REPL session was restarted without \(load ?? "the --load file"): "
                        + "it ran code that could not be stopped.\n")
                withLoad = false
            case .exited(let status):
                return status
            case .signalled(let signo):
                signal(signo, SIG_DFL)
                raise(signo)
                return 128 + signo
            }
        }
    }
}
