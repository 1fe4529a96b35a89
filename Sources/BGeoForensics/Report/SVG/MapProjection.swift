import BGeoReader
import Foundation

/// An equirectangular projection scaled by cos(mid-latitude) and fitted to a viewport: metres
/// look the same along both axes at city scale, which is all a trace map needs. North is up.
public struct MapProjection: Sendable {
    public let width: Double
    public let height: Double
    public let padding: Double
    let minLat, maxLat, minLon, maxLon: Double
    let cosLat: Double
    /// Pixels per (degree of longitude × cos(lat)).
    let scale: Double
    let offsetX, offsetY: Double

    /// Fits the bounding box of the points into `width`×`height` minus `padding` on each side.
    /// A single point (or none) gets a 200 m wide view around it.
    public init(latitudes: [Double], longitudes: [Double], width: Double, height: Double, padding: Double = 24) {
        var bounds: GeoBounds?
        for (lat, lon) in zip(latitudes, longitudes) { bounds = GeoBounds.including(bounds, latitude: lat, longitude: lon) }
        self.init(bounds: bounds, width: width, height: height, padding: padding)
    }

    /// Fits `bounds` (nil: no points) as `init(latitudes:longitudes:…)` fits the box of its points.
    public init(bounds: GeoBounds?, width: Double, height: Double, padding: Double = 24) {
        self.width = width
        self.height = height
        self.padding = padding
        var minLat = bounds?.minLatitude ?? 0, maxLat = bounds?.maxLatitude ?? 0
        var minLon = bounds?.minLongitude ?? 0, maxLon = bounds?.maxLongitude ?? 0
        let midLat = (minLat + maxLat) / 2
        let cosLat = max(cos(midLat * .pi / 180), 0.01)
        // Never zoom closer than ~200 m across: a parked phone's fixes would otherwise fill the map.
        let minSpanDeg = 200.0 / 111_320.0
        if (maxLon - minLon) * cosLat < minSpanDeg {
            let c = (minLon + maxLon) / 2
            minLon = c - minSpanDeg / cosLat / 2; maxLon = c + minSpanDeg / cosLat / 2
        }
        if maxLat - minLat < minSpanDeg {
            let c = (minLat + maxLat) / 2
            minLat = c - minSpanDeg / 2; maxLat = c + minSpanDeg / 2
        }
        self.minLat = minLat; self.maxLat = maxLat; self.minLon = minLon; self.maxLon = maxLon
        self.cosLat = cosLat
        let spanX = (maxLon - minLon) * cosLat
        let spanY = maxLat - minLat
        let scale = min((width - 2 * padding) / spanX, (height - 2 * padding) / spanY)
        self.scale = scale
        // Centre the drawing in the viewport.
        offsetX = (width - spanX * scale) / 2
        offsetY = (height - spanY * scale) / 2
    }

    /// Pixel position of a coordinate (y grows downwards).
    public func point(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        (offsetX + (longitude - minLon) * cosLat * scale, offsetY + (maxLat - latitude) * scale)
    }

    /// Ground metres per pixel (111 320 m per degree on the projection's scaled axis).
    public var metresPerPixel: Double { 111_320.0 / scale }

    /// A round scale-bar length (1, 2 or 5 × 10ⁿ metres) close to `targetPixels`, and its pixel length.
    public func scaleBar(targetPixels: Double = 120) -> (metres: Double, pixels: Double) {
        let raw = metresPerPixel * targetPixels
        let magnitude = pow(10, floor(log10(max(raw, 1e-3))))
        var best = magnitude
        for step in [1.0, 2.0, 5.0, 10.0] where step * magnitude <= raw { best = step * magnitude }
        return (best, best / metresPerPixel)
    }

    /// "500 m", "2 km".
    public static func distanceLabel(_ metres: Double) -> String {
        metres >= 1000 ? DecimalText.format(metres / 1000, places: 1) + " km" : DecimalText.format(metres, places: 0) + " m"
    }
}
