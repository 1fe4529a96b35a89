/// A page's text as it is made, appended with `+=`. Made with a `drain`, it hands its text on
/// each time it passes `chunkBytes`, so a page of any size (a map of 400,000 gaps is 60 MB of
/// SVG) costs the memory of one chunk; made without, it keeps the whole text (tests, and the
/// charts drawn on another thread while the map is written).
public struct PageText {
    /// What is not yet drained (all of it, without a drain).
    public private(set) var text = ""
    private let drain: ((String) -> Void)?
    private let chunkBytes: Int

    /// A page that keeps its whole text.
    public init() {
        drain = nil
        chunkBytes = .max
    }

    /// A page that hands its text to `drain` in chunks of about `chunkBytes`; call `flush` at the end.
    public init(chunkBytes: Int = 1 << 18, drain: @escaping (String) -> Void) {
        self.drain = drain
        self.chunkBytes = chunkBytes
        text.reserveCapacity(chunkBytes + chunkBytes / 4)
    }

    public static func += (page: inout PageText, more: String) {
        page.text += more
        if page.text.utf8.count >= page.chunkBytes { page.flush() }
    }

    /// Hands what is held to the drain (nothing to do without one).
    public mutating func flush() {
        guard let drain, !text.isEmpty else { return }
        drain(text)
        text.removeAll(keepingCapacity: true)
    }
}
