/// `--shard K/N` (`test` and `explore`): run only part K of N.
enum Shard {
    /// K and N read from `K/N`, or nil unless 1 <= K <= N.
    static func parse(_ s: String) -> (Int, Int)? {
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 1, k <= n else { return nil }
        return (k, n)
    }
}
