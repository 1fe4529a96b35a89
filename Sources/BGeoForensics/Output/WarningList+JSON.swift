import BGeoReader

extension WarningList {
    /// The warnings as a streamed JSON array of `DumpWarning.json`, read as it is written: a
    /// document lists them without holding them (`StreamedJSONDocument`).
    public func streamedArray(_ redactor: Redactor) -> StreamedJSONDocument.Array {
        .init(.pretty(redactor)) { emit in try forEach { emit($0.json) } }
    }
}
