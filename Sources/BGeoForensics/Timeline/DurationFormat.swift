import BGeoReader
import Foundation

/// Durations in the words support staff use: `5 s`, `4 min`, `2 h 10 min`, `3 d 4 h`.
public enum DurationFormat {
    public static func short(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        // Beyond a million years a duration is a broken number from the dump: say it as it is.
        guard seconds < 3e13 else { return NumberText.describe(seconds) + " s" }
        let s = max(0, seconds)
        if s < 60 {
            let rounded = (s * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded)) s" : String(format: "%.1f s", rounded)
        }
        let total = Int(s.rounded())
        let days = total / 86_400
        let hours = total % 86_400 / 3600
        let minutes = total % 3600 / 60
        if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
        if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
        let secs = total % 60
        return secs > 0 && minutes < 10 ? "\(minutes) min \(secs) s" : "\(minutes) min"
    }
}
