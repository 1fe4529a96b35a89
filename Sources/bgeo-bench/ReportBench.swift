import BGeoForensics

/// Report benchmark section (filled in with the Report feature).
enum ReportBench {
    static func run(_ context: BenchContext) throws {
        context.report("Report", ["not measured yet"])
    }
}
