import BGeoForensics
import Foundation

/// One raw fix as the device's location provider delivered it (before the engine's filter).
struct RawFix {
    var t: Double
    var latitude: Double
    var longitude: Double
    var accuracy: Double
    var speed: Double
    var heading: Double
    var altitude: Double
    var activity: String
    var confidence: Int
    var isMoving: Bool?
    var event: String?
}
