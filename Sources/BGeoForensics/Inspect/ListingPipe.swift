/// When a JSON listing's rows are formatted on other connections (`ScanRunner.piped`): tables of
/// at least `minimumRows` row ids, in chunks of `chunkRows` (the tests pipe tiny tables).
public struct ListingPipe: Sendable {
    public var minimumRows: Int64 = 50_000
    public var chunkRows: Int64 = 16_384

    public init(minimumRows: Int64 = 50_000, chunkRows: Int64 = 16_384) {
        self.minimumRows = minimumRows
        self.chunkRows = chunkRows
    }
}
