import BGeoReader
import Foundation

/// The report's reads, done together with the log read only once: the timeline scans the log
/// and hands each fix line (for the trace) and each stated queue depth to the report as it goes,
/// while the queue (the trace's other half) is read on a second connection and thread, which
/// merges the parsed lines in batches as they arrive. The second connection's warnings follow
/// the log's.
package struct ReportScan {
    package let timeline: Timeline
    /// The complete trace, stored in the private working folder, ready for replay.
    package let trace: CompleteTrace
    /// The depths the log states, spooled (a point per `queue.insert` row is never held).
    let depthLevels: QueueDepthSeries.StoredLevels
    /// Whether the timeline took the queue's facts from the queue's read (else it scanned the queue itself).
    let queueFactsShared: Bool

    /// `traceFeed`: follows the trace as the live assembly writes it (the report's replay).
    /// `sharesQueueFacts`: false makes the timeline scan the queue itself (the tests' reference).
    package static func read(_ dump: Dump, gapSeconds: Double, redactor: Redactor, windows: TraceWindows = .standard,
                     traceFeed: LiveFeed? = nil, sharesQueueFacts: Bool = true) throws -> ReportScan {
        // A third thread assembles the two spools' runs as they are written.
        let live = TraceBuilder.liveAssembly(dump: dump, windows: windows, output: traceFeed)
        let options = TimelineOptions(gapThreshold: gapSeconds, gapLimit: .max)
        // The queue's read gathers the timeline's facts of it too: the timeline then scans the log only.
        let timelineFacts = sharesQueueFacts && TimelineBuilder.readsQueueTimestamps(dump)
            ? QueueTimelineFacts(threshold: options.gapThreshold, since: options.since, until: options.until) : nil
        let queueFeed = live.feeds.queue
        let queueScan = ScanRunner.beside(dump) {
            TraceBuilder.QueueSpools.read($0, windows: windows, feed: queueFeed, timelineFacts: timelineFacts)
        }
        var lines = TraceBuilder.LineSpool(folder: dump.workFiles, windows: windows, feed: live.feeds.log)
        var levels = QueueDepthSeries.LevelReader(dump: dump, windows: windows)
        let warnings = dump.warnings
        // Every gap is kept: the map, the charts and the counts show them all.
        let timelineBuilder = TimelineBuilder(dump: dump, options: options, redactor: redactor)
        if queueScan.runsApart, timelineFacts != nil {
            // Only facts read without a warning stand for the timeline's own scan (which warns first).
            timelineBuilder.queueFactsAfterLog = {
                let taken = queueScan.takeCleanFact { spools in
                    defer { spools.timelineFacts = nil }
                    return spools.timelineFacts
                }
                guard let facts = taken ?? nil, facts.complete else { return nil }
                return facts
            }
        }
        // Only the fix lines and the depth-stating rows are observed. Those the timeline reads from
        // their cells (location, filter and queue.insert lines: most of a log) are parsed from the
        // cells too; a fix line's field scan is its JSON check as well (no second pass over the data).
        let observed = TraceBuilder.ParsedLines.events.union(QueueDepthSeries.LevelReader.events)
        timelineBuilder.logObserver = LogObserver(events: observed, cells: { row, dataChecked in
            guard TraceBuilder.ParsedLines.events.contains(row.event) else {
                levels.add(row)
                return false
            }
            if dataChecked {
                lines.add(row, warnings: warnings)
                return true
            }
            return lines.addChecking(row, warnings: warnings)
        }, entries: { entry in
            if TraceBuilder.ParsedLines.events.contains(entry.event) {
                lines.add(entry, warnings: warnings)
            } else {
                levels.add(entry)
            }
        })
        let timeline = timelineBuilder.build()
        // No second connection: the queue is read here, after the log.
        let queue = queueScan.value()
        let trace = try TraceBuilder.assemble(dump: dump, queue: queue, lines: lines, windows: windows, live: live.pass)
        return ReportScan(timeline: timeline, trace: trace, depthLevels: try levels.finish(),
                          queueFactsShared: timelineBuilder.queueFactsUsed)
    }
}
