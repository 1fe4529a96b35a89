import BGeoForensics
import Foundation

/// The simulator's route helpers in the units its scripts use (bearings in degrees, compass
/// style), on top of `Geodesy` — the replay sphere and formulas — so the simulated device and
/// replay measure the same world.
enum GeoMath {
    /// Initial bearing from point 1 to point 2 in degrees 0..<360 (the records' `heading`).
    static func bearing(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let degrees = Geodesy.initialBearing(lat1, lon1, lat2, lon2) / Geodesy.radiansPerDegree
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The point `metres` away from (lat, lon) along `bearing` degrees.
    static func destination(_ lat: Double, _ lon: Double, bearing: Double, metres: Double) -> GeoPoint {
        let point = Geodesy.destination(lat, lon, bearing: bearing * Geodesy.radiansPerDegree, distance: metres)
        return GeoPoint(point.latitude, point.longitude)
    }

    /// Rounds to `places` decimals so stored numbers look like a device's.
    static func round(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10.0, Double(places))
        return (value * scale).rounded() / scale
    }
}
