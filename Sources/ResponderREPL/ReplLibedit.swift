import CLuaShim
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// libedit, loaded with `dlopen` the first time a terminal REPL starts: `run` and `test` never pay
/// for loading it (and its dependencies) at process start.
///
/// `scripts/setup` links `responder` as a static executable: glibc's static `dlopen` then loads
/// libedit with a C library of its own (its own allocator, its own locale). Everything libedit
/// frees or keeps is therefore allocated with ``strdup`` and everything it returns released with
/// ``free`` of libedit's C library, and the locale is set there too (``setlocale``). In a
/// dynamic executable they are the process's own, looked up in the global scope: an allocator
/// that replaces malloc (AddressSanitizer, a preloaded one) must also be the one that frees.
struct Libedit {
    typealias ReadlineFn = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    typealias StringIntFn = @convention(c) (UnsafePointer<CChar>?) -> Int32
    typealias VoidIntFn = @convention(c) () -> Int32
    typealias StifleFn = @convention(c) (Int32) -> Void
    typealias EntryFn = @convention(c) (UnsafePointer<CChar>?, Int32) -> UnsafeMutablePointer<CChar>?
    typealias StrdupFn = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    typealias FreeFn = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias SetlocaleFn = @convention(c) (Int32, UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    typealias MatchesFn =
        @convention(c) (UnsafePointer<CChar>?, EntryFn?) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

    let handle: UnsafeMutableRawPointer
    let readline: ReadlineFn
    let addHistory: StringIntFn
    let readHistory: StringIntFn
    let writeHistory: StringIntFn
    let initialize: VoidIntFn
    let stifleHistory: StifleFn
    let completionMatches: MatchesFn
    /// `strdup` of the C library libedit uses: for strings libedit frees or keeps.
    let strdup: StrdupFn
    /// `free` of the C library libedit uses: for what `readline` returns.
    let free: FreeFn
    /// `setlocale` of the C library libedit uses.
    let setlocale: SetlocaleFn

    /// The loaded library, or nil when libedit is not installed (the REPL then reads plain lines).
    nonisolated(unsafe) static let shared: Libedit? = load()

    private static func load() -> Libedit? {
        guard
            let handle = dlopen("libedit.so.2", RTLD_NOW | RTLD_GLOBAL) ?? dlopen("libedit.so", RTLD_NOW | RTLD_GLOBAL)
        else {
            return nil
        }
        func fn<T>(_ name: String, _: T.Type) -> T? {
            guard let symbol = dlsym(handle, name) else { return nil }
            return unsafeBitCast(symbol, to: T.self)
        }
        // A static executable has no program interpreter (AT_BASE 0): libedit's C library is then
        // another one, found through libedit's handle; else the process's, in the global scope.
        let isStatic = luashim_is_static_executable() != 0
        func libc<T>(_ name: String, _: T.Type) -> T? {
            guard let symbol = isStatic ? dlsym(handle, name) : dlsym(nil, name) else { return nil }
            return unsafeBitCast(symbol, to: T.self)
        }
        guard let readline = fn("readline", ReadlineFn.self),
            let addHistory = fn("add_history", StringIntFn.self),
            let readHistory = fn("read_history", StringIntFn.self),
            let writeHistory = fn("write_history", StringIntFn.self),
            let initialize = fn("rl_initialize", VoidIntFn.self),
            let stifleHistory = fn("stifle_history", StifleFn.self),
            let completionMatches = fn("rl_completion_matches", MatchesFn.self),
            let strdup = libc("strdup", StrdupFn.self),
            let free = libc("free", FreeFn.self),
            let setlocale = libc("setlocale", SetlocaleFn.self)
        else { return nil }
        return Libedit(
            handle: handle, readline: readline, addHistory: addHistory, readHistory: readHistory,
            writeHistory: writeHistory, initialize: initialize, stifleHistory: stifleHistory,
            completionMatches: completionMatches, strdup: strdup, free: free, setlocale: setlocale)
    }

    /// A libedit global variable (Swift 6 refuses direct references to imported mutable C
    /// globals, and the readline-compatible API has no setters).
    func global<T>(_ name: String, _ type: T.Type) -> UnsafeMutablePointer<T>? {
        dlsym(handle, name)?.assumingMemoryBound(to: T.self)
    }
}
