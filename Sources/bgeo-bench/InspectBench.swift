import BGeoForensics
import Foundation

/// `inspect` on the big dump beside `sqlite3` scanning the same rows with json_extract on a copy.
enum InspectBench {
    static func run(_ context: BenchContext) throws {
        context.report("Inspect", ["not measured yet"])
    }
}
