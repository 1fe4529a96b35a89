import BGeoReader

/// A latitude/longitude box grown point by point (GPX metadata bounds, GeoJSON bbox).
public struct GeoBounds: Sendable, Equatable {
    public var minLatitude, minLongitude, maxLatitude, maxLongitude: Double

    public init(latitude: Double, longitude: Double) {
        minLatitude = latitude
        maxLatitude = latitude
        minLongitude = longitude
        maxLongitude = longitude
    }

    public mutating func include(latitude: Double, longitude: Double) {
        minLatitude = min(minLatitude, latitude)
        maxLatitude = max(maxLatitude, latitude)
        minLongitude = min(minLongitude, longitude)
        maxLongitude = max(maxLongitude, longitude)
    }

    /// `bounds` grown by a point (started by it when nil).
    public static func including(_ bounds: GeoBounds?, latitude: Double, longitude: Double) -> GeoBounds {
        guard var grown = bounds else { return GeoBounds(latitude: latitude, longitude: longitude) }
        grown.include(latitude: latitude, longitude: longitude)
        return grown
    }
}
