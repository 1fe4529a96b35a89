import BGeoReader

/// The tool's version, shown by `--version` and in every report header.
public enum ToolInfo {
    public static let name = "bgeo-forensics"
    public static let version = "0.1.0"
    /// What the tool is for, in one line: the first line of `--help` and the man page's NAME.
    public static let summary = "read BGeo / LongPing device dumps as evidence, replay them, explain them, re-sync them."
}
