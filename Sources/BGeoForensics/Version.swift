/// The tool's version, shown by `--version` and in every report header.
public enum ToolInfo {
    public static let name = "bgeo-forensics"
    public static let version = "0.1.0"
}
