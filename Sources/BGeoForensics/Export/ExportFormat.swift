import BGeoReader

/// The file formats `export` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    case geojson, kml, gpx

    /// The format a file name implies (`.geojson` / `.json`, `.kml`, `.gpx`), if any.
    public static func implied(by path: String) -> ExportFormat? {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".geojson") || lowered.hasSuffix(".json") { return .geojson }
        if lowered.hasSuffix(".kml") { return .kml }
        if lowered.hasSuffix(".gpx") { return .gpx }
        return nil
    }
}
