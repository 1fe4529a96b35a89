import BGeoReader

/// One CSV cell as it is written: RFC 4180 quoting (a field holding a comma, a quote, a CR or a LF
/// goes between quotes with each quote doubled), and a leading = + - @ prefixed with ' so a
/// spreadsheet does not run it as a formula (a number keeps its sign). Decided on the bytes, as a
/// CSV reader reads them: a comma or quote followed by a combining mark is still a comma or quote
/// (`QuotedText`). The quoted text itself is never made: `TextOutput.dataLine(fields:separator:)`
/// writes the pieces, so a 60 MB cell is not held a second time.
public struct CSVField: Sendable {
    /// The cell's text as the listing gives it.
    public let text: String
    /// Whether a ' goes before the text (a formula's first character that is not a number's sign).
    public let guardsFormula: Bool
    /// Whether the text goes between quotes, each quote in it doubled.
    public let isQuoted: Bool

    public init(_ text: String) {
        self.text = text
        if let first = text.utf8.first, "=+-@".utf8.contains(first) {
            guardsFormula = Double(text) == nil
        } else {
            guardsFormula = false
        }
        isQuoted = QuotedText.holdsAny(of: ",\"\n\r", in: text)
    }

    /// The cell as one string: the definition `TextOutput.dataLine(fields:)`'s pieces are tested
    /// against (`TextOutputTests`).
    public var written: String {
        let guarded = guardsFormula ? "'" + text : text
        return isQuoted ? QuotedText.quoted(guarded, by: UInt8(ascii: "\"")) : guarded
    }
}
