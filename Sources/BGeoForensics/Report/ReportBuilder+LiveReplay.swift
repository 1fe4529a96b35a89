import BGeoReader
import Foundation

extension ReportBuilder {
    /// The report's replay following the live assembly's trace on its own thread while the dump
    /// is read (`ReportScan.read(traceFeed:)`), counted under `LiveTraceFollower`'s rule. The
    /// charts' time axis is not known yet: they reduce their own series.
    typealias LiveReplay = LiveTraceFollower<ReportReplayPass>
}

extension LiveTraceFollower where Pass == ReportReplayPass {
    convenience init(_ configuration: ReplayConfiguration, dump: Dump) {
        let folder = dump.workFiles
        self.init { try? ReportReplayPass(configuration, folder: folder, chartSpan: nil) }
    }
}

extension ReportReplayPass: LiveTracePass {}
