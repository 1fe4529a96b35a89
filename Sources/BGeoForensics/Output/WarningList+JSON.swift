import BGeoReader

extension WarningList {
    /// The warnings as a streamed JSON array (each `element`, `DumpWarning.json` unless told),
    /// read as it is written: a document lists them without holding them (`StreamedJSONDocument`).
    public func streamedArray(_ redactor: Redactor,
                              element: @escaping (DumpWarning) -> JSONValue = { $0.json }) -> StreamedJSONDocument.Array {
        .init(.pretty(redactor)) { emit in try forEach { emit(element($0)) } }
    }
}
