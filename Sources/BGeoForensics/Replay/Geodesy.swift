import BGeoReader
import Foundation

/// Spherical geometry as the engine does it: haversine distance on a sphere of radius
/// R = 6 371 008.8 m (the IUGG mean radius) and great-circle interpolation. Degrees in, metres out.
public enum Geodesy {
    /// Mean Earth radius in metres (replay-semantics.md).
    public static let earthRadius = 6_371_008.8
    package static let radiansPerDegree = Double.pi / 180

    /// cos(latitude) of a point in degrees.
    @inline(__always)
    public static func cosLatitude(_ latitude: Double) -> Double { cos(latitude * radiansPerDegree) }

    /// Haversine distance in metres between two points given in degrees.
    @inline(__always)
    public static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        haversine(lat1, lon1, cosLat1: cos(lat1 * radiansPerDegree), lat2, lon2)
    }

    /// Haversine with the first point's cos(latitude) precomputed: the pipeline keeps it for its
    /// reference and anchor points, saving one cosine per fix in the hot loop.
    @inline(__always)
    public static func haversine(_ lat1: Double, _ lon1: Double, cosLat1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        haversine(lat1, lon1, cosLat1: cosLat1, lat2, lon2, cosLat2: cos(lat2 * radiansPerDegree))
    }

    /// Haversine with both cosines precomputed (the pipeline computes each point's once and
    /// reuses it when that point becomes the next reference or anchor).
    @inline(__always)
    public static func haversine(_ lat1: Double, _ lon1: Double, cosLat1: Double, _ lat2: Double, _ lon2: Double,
                                 cosLat2: Double) -> Double {
        let sinHalfDLat = sin((lat2 - lat1) * radiansPerDegree * 0.5)
        let sinHalfDLon = sin((lon2 - lon1) * radiansPerDegree * 0.5)
        let a = sinHalfDLat * sinHalfDLat + cosLat1 * cosLat2 * sinHalfDLon * sinHalfDLon
        // Rounding can push `a` a hair past 1 for antipodal points; asin would return NaN.
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }

    /// Initial great-circle bearing from point 1 to point 2, radians clockwise from north.
    public static func initialBearing(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let φ1 = lat1 * radiansPerDegree, φ2 = lat2 * radiansPerDegree
        let Δλ = (lon2 - lon1) * radiansPerDegree
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        return atan2(y, x)
    }

    /// The point `distance` metres from (lat, lon) along the great circle starting at `bearing`
    /// (radians clockwise from north). Longitude normalised to −180…180.
    public static func destination(_ lat: Double, _ lon: Double, bearing: Double, distance: Double) -> (latitude: Double, longitude: Double) {
        let δ = distance / earthRadius
        let φ1 = lat * radiansPerDegree, λ1 = lon * radiansPerDegree
        let sinφ2 = sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(bearing)
        let φ2 = asin(max(-1, min(1, sinφ2)))
        let λ2 = λ1 + atan2(sin(bearing) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sinφ2)
        return (φ2 / radiansPerDegree, normalizedLongitude(λ2 / radiansPerDegree))
    }

    /// The point `distance` metres from point 1 along the great circle toward point 2
    /// (Adjust's capped fix). Uses spherical linear interpolation with fraction distance/total,
    /// which lies on the great circle by construction; falls back to the bearing form when the
    /// points are (nearly) identical or antipodal, where the interpolation is undefined.
    public static func pointToward(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double,
                                   distance: Double) -> (latitude: Double, longitude: Double) {
        let total = haversine(lat1, lon1, lat2, lon2)
        let δ = total / earthRadius
        let sinδ = sin(δ)
        guard total > 0, sinδ > 1e-12 else {
            return destination(lat1, lon1, bearing: initialBearing(lat1, lon1, lat2, lon2), distance: distance)
        }
        let f = distance / total
        let a = sin((1 - f) * δ) / sinδ
        let b = sin(f * δ) / sinδ
        let φ1 = lat1 * radiansPerDegree, λ1 = lon1 * radiansPerDegree
        let φ2 = lat2 * radiansPerDegree, λ2 = lon2 * radiansPerDegree
        let x = a * cos(φ1) * cos(λ1) + b * cos(φ2) * cos(λ2)
        let y = a * cos(φ1) * sin(λ1) + b * cos(φ2) * sin(λ2)
        let z = a * sin(φ1) + b * sin(φ2)
        let φ = atan2(z, (x * x + y * y).squareRoot())
        let λ = atan2(y, x)
        return (φ / radiansPerDegree, normalizedLongitude(λ / radiansPerDegree))
    }

    static func normalizedLongitude(_ lon: Double) -> Double {
        var l = lon
        while l > 180 { l -= 360 }
        while l < -180 { l += 360 }
        return l
    }
}
