import BGeoReader
import Foundation

/// A context event remembered for gap explanations (runs collapsed to their edges).
struct ContextMark: Sendable {
    var kind: GapContextEvent.Kind
    var at: Double
    var logId: Int64
    var lastAt: Double
    var lastLogId: Int64
    var detail: String?
}
