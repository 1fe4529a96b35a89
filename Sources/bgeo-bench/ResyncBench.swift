import BGeoForensics

/// Resync benchmark section (filled in with the Resync feature).
enum ResyncBench {
    static func run(_ context: BenchContext) throws {
        context.report("Resync", ["not measured yet"])
    }
}
