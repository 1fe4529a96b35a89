import BGeoForensics
/// A fuzz harness problem (not a finding about the tool).
public struct FuzzError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
