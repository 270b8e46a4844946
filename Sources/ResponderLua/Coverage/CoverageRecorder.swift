import CLua
import CLuaShim
import ResponderEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Records coverage for one runtime: line counts of the user's chunks (through the C line hook),
/// counters of every responder and declaration registered, and which tappable nodes and
/// controls simulated input drove. `snapshot()` folds it all into ``CoverageData``.
///
/// Only chunks named `@path` (script files, specs, required modules) are recorded; the built-in
/// framework and kit load under `=` names and never are.
public final class CoverageRecorder {
    /// Whether lines are recorded (the line hook is on); otherwise only responders and controls.
    public let recordsLines: Bool

    private struct File {
        let path: String
        let lines: [Int]
        let counts: UnsafeMutablePointer<UInt32>
    }

    /// A registration being counted; folded into `collected` at each collection.
    private final class Site {
        let stats = ResponderStats()
        weak var node: Node?
        var lastPath: String
        let kind: String
        let filter: String?
        let declared: [ValueType]
        let id: String?
        let file: String
        let line: Int
        /// Folded before: later folds add counts, not another instance.
        var foldedOnce = false

        init(
            kind: String, filter: String?, declared: [ValueType], id: String?, node: Node, file: String, line: Int
        ) {
            self.node = node
            self.lastPath = node.description
            self.kind = kind
            self.filter = filter
            self.declared = declared
            self.id = id
            self.file = file
            self.line = line
        }
    }

    private final class DriveMark {
        weak var node: Node?
        var count = 0
        /// The drive that counted last (see ``World/driveObserver``).
        var serial = 0
        init(_ node: Node) { self.node = node }
    }

    private var files: [File] = []
    private var sites: [Site] = []
    private var driven: [ObjectIdentifier: DriveMark] = [:]
    private var collected = CoverageData()
    private weak var world: World?
    /// Registry reference of the table anchoring registered chunks (their source strings' addresses are keys).
    private var anchorRef: Int32 = LUA_NOREF

    init(recordsLines: Bool) {
        self.recordsLines = recordsLines
    }

    /// Starts recording `mode` in a runtime whose module is installed and that has run no script
    /// yet (the line hook must be set before any coroutine exists: threads copy their creator's).
    public static func install(_ mode: CoverageMode, in runtime: LuaRuntime) {
        guard mode != .off, let m = runtime.moduleState else { return }
        if mode == .linesAndResponders { luashim_coverage_enable(runtime.L) }
        let recorder = CoverageRecorder(recordsLines: mode == .linesAndResponders)
        recorder.attach(to: m.world)
        runtime.coverage = recorder
    }

    /// Hooks the recorder into a world: collection before each reset, drive marks.
    func attach(to world: World) {
        self.world = world
        world.willReset = { [weak self] in self?.collectTree() }
        world.driveObserver = { [weak self] node, serial in self?.noteDriven(node, serial) }
    }

    // MARK: - lines

    /// The path with `.` and `name/..` steps removed (`./a/b/../c.lua` → `a/c.lua`), so a
    /// file reached along two paths is one LCOV record.
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            if part == "..", absolute { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// Active lines by (path, content hash), shared by every state of the process.
    nonisolated(unsafe) private static var linesCache: [String: [Int]] = [:]
    private static let cacheLock = CacheLock()

    /// Registers the chunk just loaded (the function on top of the stack) under `chunkname`.
    func registerChunk(_ runtime: LuaRuntime, chunkname: String, bytes: [UInt8]) {
        guard recordsLines, chunkname.hasPrefix("@") else { return }
        let L = runtime.L
        let path = CoverageRecorder.normalize(String(chunkname.dropFirst()))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        let key = "\(path)\t\(bytes.count)\t\(hash)"
        var lines = CoverageRecorder.cacheLock.withLock { CoverageRecorder.linesCache[key] }
        if lines == nil {
            var size = 0
            guard let dump = luashim_dump_function(L, -1, &size) else { return }
            let buffer = Array(UnsafeBufferPointer(start: dump, count: size))
            free(dump)
            guard let active = try? BytecodeLines.activeLines(buffer) else { return }
            lines = active
            CoverageRecorder.cacheLock.withLock { CoverageRecorder.linesCache[key] = active }
        }
        guard let lines, let counts = luashim_coverage_register(L, -1, Int32(lines.last ?? 0)) else { return }
        // anchor the main function: its source string must live as long as the state
        if anchorRef == LUA_NOREF {
            luashim_newtable(L)
            anchorRef = luaL_ref(L, luashim_registryindex())
        }
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(anchorRef))
        lua_pushvalue(L, -2)
        lua_rawseti(L, -2, lua_Integer(lua_rawlen(L, -2) + 1))
        luashim_pop(L, 1)
        if !files.contains(where: { $0.counts == counts }) {
            files.append(File(path: path, lines: lines, counts: counts))
        }
    }

    // MARK: - responders and controls

    /// Starts counting a new entry of `node`, registered by the innermost script-file line on
    /// the stack of `L` (full path: `short_src` truncates long ones). Registrations made only by
    /// built-in code are not counted.
    func track(_ entry: ResponderEntry, on node: Node, _ L: OpaquePointer?) {
        guard let (file, line) = registrationPlace(L) else { return }
        let site = Site(
            kind: entry.kind.rawValue, filter: entry.filter?.name, declared: entry.declared, id: entry.id, node: node,
            file: file, line: line)
        entry.stats = site.stats
        append(site)
    }

    /// Starts counting the calls of a subscriber of `node` (`subscribe(T)`: handled when its
    /// function ran, threw when it raised), like an entry's.
    func track(_ subscriber: Subscriber, on node: Node, _ L: OpaquePointer?) {
        guard let (file, line) = registrationPlace(L) else { return }
        let site = Site(
            kind: "subscribe", filter: subscriber.type.name, declared: [], id: subscriber.id, node: node, file: file,
            line: line)
        subscriber.stats = site.stats
        append(site)
    }

    /// Sites counted at which the list is folded next (see ``append(_:)``).
    private var foldAt = 4096

    /// Adds a site; folds the list when it has doubled since the last fold, so that the sites of
    /// collected nodes do not pile up until the run ends (a script registering on a million
    /// short-lived nodes kept a million sites: memory outside the cap, found by a probe).
    private func append(_ site: Site) {
        world?.meter.charge(CoverageRecorder.siteBytes)
        sites.append(site)
        if sites.count >= foldAt {
            foldSites()
            foldAt = max(4096, sites.count * 2)
        }
    }

    /// What a site takes while it counts (its object, its stats, its strings' headers).
    static let siteBytes = 256

    /// Longest node path a record keeps, in bytes: a deeper node's path keeps its last steps
    /// after `… > ` (a chain 12,000 deep made paths of 12,000 steps for each of its nodes, memory
    /// and output quadratic in the depth, found by a probe).
    static let maxPathBytes = 1000

    /// `path` cut to its last steps when it is longer than ``maxPathBytes``.
    static func bounded(_ path: String) -> String {
        let bytes = path.utf8
        guard bytes.count > maxPathBytes else { return path }
        let tail = bytes.suffix(maxPathBytes)
        let text = String(decoding: tail, as: UTF8.self)
        guard let cut = text.firstRange(of: " > ") else { return "… > " + text }
        return "… > " + text[cut.upperBound...]
    }

    /// `node.path()` as a record keeps it (``bounded(_:)``), walking no further up than needed.
    static func boundedPath(_ node: Node) -> String {
        var steps: [String] = []
        var bytes = 0
        var current: Node? = node
        while let n = current, bytes <= maxPathBytes {
            let step = n.description
            steps.append(step)
            bytes += step.utf8.count + 3
            current = n.parent
        }
        let path = steps.reversed().joined(separator: " > ")
        return current == nil ? path : bounded("… > " + path)
    }

    /// Charges a record new to `collected` to the world's memory meter: coverage is kept on the
    /// script's behalf (SPEC §4), never given back while the state lives.
    private func charge(newKey key: String) {
        world?.meter.charge(160 + 2 * key.utf8.count)
    }

    /// The innermost script-file line on the stack of `L`, if any.
    private func registrationPlace(_ L: OpaquePointer?) -> (String, Int)? {
        var ar = lua_Debug()
        var level: Int32 = 0
        var place: (String, Int)?
        while lua_getstack(L, level, &ar) != 0 {
            if lua_getinfo(L, "Sl", &ar) != 0, ar.currentline > 0, let src = ar.source, src.pointee == 64 {
                place = (CoverageRecorder.normalize(String(cString: src + 1)), Int(ar.currentline))
                break
            }
            level += 1
        }
        return place
    }

    /// Counts a drive of `node` once per input or action (`serial`): a `tap` that sends the
    /// button's touchUpInside counted it twice, a `slide` (three control actions) three times.
    private func noteDriven(_ node: Node, _ serial: Int) {
        let key = ObjectIdentifier(node)
        if let mark = driven[key], mark.node === node {
            if mark.serial != serial { mark.count += 1 }
            mark.serial = serial
        } else {
            let mark = DriveMark(node)
            mark.count = 1
            mark.serial = serial
            driven[key] = mark
        }
    }

    /// Records the mounted tree's tappable nodes and controls and folds the counters so far.
    func collectTree() {
        if let root = world?.root {
            // each node with the path coverage names it by: `node.path()`, with a position added
            // to a step that siblings share (`Root > Button[2]` for the second of two Buttons
            // without ids: two controls of one path were one record; found by a probe)
            var stack = [(root, root.description)]
            while let (node, path) = stack.popLast() {
                let isControl = node.host >= 10
                if isControl || !node.tapActions.isEmpty {
                    let mark = driven[ObjectIdentifier(node)]
                    let count = mark?.node === node ? mark!.count : 0
                    let control = CoverageData.Control(kind: isControl ? node.name : "tap", node: path, driven: count)
                    if collected.controls[control.key] == nil { charge(newKey: control.key) }
                    collected.add(control)
                }
                let children = node.children
                var seen: [String: Int] = [:]
                for child in children { seen[child.description, default: 0] += 1 }
                var positions: [String: Int] = [:]
                var below: [(Node, String)] = []
                below.reserveCapacity(children.count)
                for child in children {
                    let text = child.description
                    var step = text
                    if seen[text, default: 0] > 1 {
                        positions[text, default: 0] += 1
                        step += "[\(positions[text]!)]"
                    }
                    below.append((child, CoverageRecorder.bounded(path + " > " + step)))
                }
                stack.append(contentsOf: below.reversed())
            }
        }
        driven = [:]
        foldSites()
    }

    private func foldSites() {
        var alive: [Site] = []
        alive.reserveCapacity(sites.count)
        for site in sites {
            if let node = site.node { site.lastPath = CoverageRecorder.boundedPath(node) }
            var r = CoverageData.Responder(
                kind: site.kind, filter: site.filter, declared: site.declared.map(\.name), id: site.id,
                file: site.file, line: site.line, node: site.lastPath)
            let s = site.stats
            r.instances = site.foldedOnce ? 0 : 1
            r.skipped = s.skipped
            r.reached = s.reached
            r.handled = s.handled
            r.passed = s.passed
            r.threw = s.threw
            r.transformed = s.transformed
            // a declared type saw a value when a value of it or of a descendant passed
            for d in site.declared {
                let n = s.seenTypes.reduce(0) { $0 + (d.isSame(orAncestorOf: $1.type) ? $1.count : 0) }
                if n > 0 { r.seen[d.name, default: 0] += n }
            }
            if collected.responders[r.key] == nil { charge(newKey: r.key) }
            collected.add(r)
            s.clear()
            site.foldedOnce = true
            // a live node's entry keeps counting into the same stats
            if site.node != nil { alive.append(site) }
        }
        world?.meter.release((sites.count - alive.count) * CoverageRecorder.siteBytes)
        sites = alive
    }

    /// Everything recorded so far (the mounted tree is collected now).
    public func snapshot() -> CoverageData {
        collectTree()
        var data = collected
        for f in files {
            var lines = CoverageData.FileLines()
            for line in f.lines { lines.counts[line] = Int(f.counts[line]) }
            data.files[f.path, default: CoverageData.FileLines()].counts.merge(lines.counts, uniquingKeysWith: +)
        }
        return data
    }
}

/// A tiny lock for the process-wide caches (test workers are single-threaded; benchmarks and
/// library users may not be).
final class CacheLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
