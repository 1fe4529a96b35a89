import BGeoReader

/// An export that could not be written (the output cannot be opened, the disk is full, the pipe
/// closed): one sentence naming the file.
public struct ExportError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
