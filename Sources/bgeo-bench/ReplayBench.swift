import BGeoForensics

/// Replay benchmark section (filled in with the Replay feature).
enum ReplayBench {
    static func run(_ context: BenchContext) throws {
        context.report("Replay", ["not measured yet"])
    }
}
