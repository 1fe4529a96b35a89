import BGeoReader

/// A format that writes a track as features (GeoJSON, KML), called by `TrackFeatureExport` in
/// this order: `begin`; the track section (`beginLine`, its `vertex`es, `endLine`, for each
/// segment of two or more points, then `isolatedFix` for each one-point segment); the fixes
/// section (`fix`, only with `--points`); the geofence section (`geofence`); `finish`. `section`
/// announces each section, so a writer can open and close its folders or features.
protocol TrackFeatureWriter: AnyObject {
    func begin(outline: TrackOutline, geofences: [ReportGeofence], includesFixes: Bool)
    func section(_ section: TrackFeatureSection)
    func beginLine(_ segment: TrackOutline.Segment, number: Int)
    func vertex(_ point: TrackPoint)
    func endLine()
    /// A segment of a single fix (gaps on both sides): no line can be drawn through it.
    func isolatedFix(_ point: TrackPoint, segment number: Int)
    func fix(_ point: TrackPoint)
    func geofence(_ event: ReportGeofence)
    /// Closes the document; throws if any write failed.
    func finish() throws(OutputWriteError)
}

/// The parts of a feature export, in document order.
enum TrackFeatureSection: Sendable {
    case track, fixes, geofences
}
