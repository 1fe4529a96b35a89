import Foundation

/// The report's reads, done together with the log read only once: the timeline scans the log
/// and hands each fix line (for the trace) and each stated queue depth to the report as it goes,
/// while the queue (the trace's other half) is read on a second connection and thread, which
/// merges the parsed lines in batches as they arrive. The second connection's warnings follow
/// the log's.
struct ReportScan {
    let timeline: Timeline
    /// The complete trace, ready for replay.
    let trace: Trace
    let depthLevels: [QueueDepthSeries.Level]

    static func read(_ dump: Dump, gapSeconds: Double, redactor: Redactor) -> ReportScan {
        let lineBatches = BatchChannel<TraceBuilder.ParsedLines.Item>()
        let queueScan = SecondConnectionScan.start(on: dump) { reader -> TraceMerger in
            var merger = TraceMerger(queue: TraceBuilder.readQueue(reader), warnings: reader.warnings)
            while let batch = lineBatches.receive() { merger.add(batch) }
            return merger
        }
        var lines = TraceBuilder.ParsedLines()
        var levels = QueueDepthSeries.LevelReader()
        let warnings = dump.warnings
        // Every gap is kept: the map, the charts and the counts show them all.
        let timelineBuilder = TimelineBuilder(dump: dump, options: TimelineOptions(gapThreshold: gapSeconds, gapLimit: .max),
                                              redactor: redactor)
        timelineBuilder.logObserver = { entry in
            if TraceBuilder.ParsedLines.events.contains(entry.event) {
                lines.add(entry, warnings: warnings)
                if queueScan != nil, lines.items.count >= 8192 { lineBatches.send(lines.takeItems()) }
            } else {
                levels.add(entry)
            }
        }
        let timeline = timelineBuilder.build()
        if queueScan != nil { lineBatches.send(lines.takeItems()) }
        lineBatches.close()
        var merger: TraceMerger
        if let queueScan {
            merger = queueScan.finish(into: dump.warnings)
        } else {
            // No second connection: read the queue here and merge everything the log gave.
            merger = TraceMerger(queue: TraceBuilder.readQueue(dump), warnings: dump.warnings)
            merger.add(lines.takeItems())
        }
        return ReportScan(timeline: timeline, trace: merger.finish(lines: lines), depthLevels: levels.levels)
    }
}
