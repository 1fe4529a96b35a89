import BGeoForensics
/// Something `fleet` itself could not do (start a process, make its working folder): one sentence.
public struct FleetError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
