/// A fix's motion state and position as its row records them: what the timeline reads only for
/// the few fixes that border a gap (`Dump.motion(ofQueueRow:)`, `Dump.motion(ofLogRow:)`).
package struct FixMotion: Sendable, Equatable {
    /// Moving as the SDK decides it (`moving(isMoving:speed:)`); nil when unknown.
    package var moving: Bool?
    package var latitude: Double?
    package var longitude: Double?

    package init(moving: Bool?, latitude: Double?, longitude: Double?) {
        self.moving = moving
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Moving as the SDK decides it: `is_moving` as stated, else a known (non-negative) speed
    /// above 1 m/s; nil when neither is known. The one motion rule: the queue, the location
    /// lines and the gap edges all call it.
    package static func moving(isMoving: Bool?, speed: Double?) -> Bool? {
        if let isMoving { return isMoving }
        guard let speed, speed >= 0 else { return nil }
        return speed > 1
    }
}
