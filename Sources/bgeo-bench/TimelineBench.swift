import BGeoForensics

/// Timeline benchmark section (filled in with the Timeline feature).
enum TimelineBench {
    static func run(_ context: BenchContext) throws {
        context.report("Timeline", ["not measured yet"])
    }
}
