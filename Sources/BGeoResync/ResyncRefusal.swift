import BGeoForensics
import Foundation

/// A run that cannot go on without sending something it must not (a refresh issued a token
/// that cannot be a header): the command reports it as bad input (exit 2). Nothing more is sent.
public struct ResyncRefusal: Error, CustomStringConvertible, Sendable {
    public let description: String
}
