import BGeoReader

extension TimelineBuilder {
    /// Starts the timeline's log read on second connections (`ScanRunner.piped`, the **in order**
    /// rule): two workers take chunks of the log in turn, decoding its rows into
    /// `TimelineLogItem`s with the decoder this thread's pass uses, while this thread reads the
    /// queue and then handles the items in row order. The chunks stand for their rows up to the
    /// first row that warned or met damage; this thread's pass reads the rest itself (`scanLog`),
    /// as it would have alone.
    /// Nil when the log is small (under `minimumRows` row ids), a connection does not open, or
    /// this process reads on one thread.
    static func pipedLog(on dump: Dump, query: LogQuery, reading: TimelineLogItem.Reading,
                         minimumRows: Int64, chunkRows: Int64) -> PipedRead<TimelineLogItem>? {
        guard dump.layout.hasLog, query.order == .oldestFirst, query.grep == nil, query.limit == nil,
              let chunks = dump.rowChunks(of: "log_entries", minimumRows: minimumRows, size: chunkRows) else { return nil }
        return ScanRunner.piped(dump, chunks: chunks) { reader, rows, sink in
            var lines = LocationLineFolder()
            let warnings = reader.warnings
            reader.forEachLogEntry(query, rows: rows, continuing: sink.begin(row:), takenFromCells: { row in
                guard let item = TimelineLogItem(row, reading, lines: &lines, warnings: warnings) else { return false }
                if item.isLine { row.checkData(warnings) }
                let bytes = item.keptBytes
                sink.emit(item, bytes: bytes)
                return true
            }, takerChecksData: true) { entry in
                let item = TimelineLogItem.entry(entry)
                let bytes = item.keptBytes
                sink.emit(item, bytes: bytes)
            }
        }
    }
}
