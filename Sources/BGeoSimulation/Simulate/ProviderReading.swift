import BGeoForensics
import Foundation

/// One reading of the simulated device's location provider: a raw fix as the provider delivers
/// it, before the engine's filter (what the simulated engine then accepts, adjusts or rejects).
struct ProviderReading {
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
