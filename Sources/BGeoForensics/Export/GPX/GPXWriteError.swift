import BGeoReader
import Foundation

/// Errors writing GPX.
public struct GPXWriteError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
