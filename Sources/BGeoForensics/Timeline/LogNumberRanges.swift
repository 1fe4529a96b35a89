import BGeoReader
import Foundation

/// What the numbers of log rows can plausibly hold.
enum LogNumberRanges {
    /// A backoff of more than ~31 years, or more failures than that many seconds, is a broken number.
    static let limit = 1e9
}
