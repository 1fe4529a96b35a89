import BGeoForensics
import Foundation

/// A point on the map.
struct GeoPoint {
    var latitude: Double
    var longitude: Double
    init(_ latitude: Double, _ longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// How a drive's raw fixes may be tampered with (planted teleports, bad accuracy).
enum FixTamper {
    case none
    /// Moves the fix `metres` away along `bearing` (a teleport), keeping a good accuracy.
    case teleport(metres: Double, bearing: Double)
    /// Gives the fix this accuracy and scatters it accordingly.
    case lowAccuracy(Double)
}

extension DeviceSimulation {
    /// Drives along `route` starting at `start`: a motionchange MOVING fix, a fix every ~`interval`
    /// seconds at speeds in `cruise`, a motionchange STATIONARY fix at arrival. `tamper` lets a
    /// scenario plant bad fixes by index. Returns the arrival time and the distance driven.
    @discardableResult
    func drive(_ route: [GeoPoint], start: Double, cruise: ClosedRange<Double>, interval: Double? = nil,
               tamper: (Int) -> FixTamper = { _ in .none }, onFix: (Int, Double) -> Void = { _, _ in }) -> (end: Double, distance: Double) {
        guard route.count >= 2 else { return (start, 0) }
        let interval = interval ?? fixInterval
        var t = start
        advance(to: t)
        motionChange(moving: true, confidence: rng.int(75...100))
        var segment = 0
        var along = 0.0
        var speed = 2.5
        var driven = 0.0
        var index = 0
        var position = route[0]
        var altitude = 105.0
        func segmentLength(_ i: Int) -> Double {
            Geodesy.haversine(route[i].latitude, route[i].longitude, route[i + 1].latitude, route[i + 1].longitude)
        }
        emit(position, t: t, speed: 0.8, heading: GeoMath.bearing(route[0].latitude, route[0].longitude, route[1].latitude, route[1].longitude),
             altitude: altitude, moving: true, event: "motionchange", tamper: .none)
        index += 1
        while segment < route.count - 1, !isFull {
            let dt = interval + rng.double(-0.9...0.9)
            t += dt
            let target = cruise.lowerBound + (cruise.upperBound - cruise.lowerBound) * (0.5 + 0.5 * sin(t / 420))
            let k = dt / 10
            speed = max(1.5, min(cruise.upperBound + 2, speed + max(-3 * k, min(2.5 * k, ((target - speed) * 0.35 + rng.gaussian(0.8)) * k))))
            var step = speed * dt
            while step > 0, segment < route.count - 1 {
                let remaining = segmentLength(segment) - along
                if step < remaining {
                    along += step
                    driven += step
                    step = 0
                } else {
                    driven += remaining
                    step -= remaining
                    segment += 1
                    along = 0
                }
            }
            let s = min(segment, route.count - 2)
            let a = route[s], b = route[s + 1]
            let heading = GeoMath.bearing(a.latitude, a.longitude, b.latitude, b.longitude)
            let p = segment >= route.count - 1
                ? route[route.count - 1] : GeoMath.destination(a.latitude, a.longitude, bearing: heading, metres: along)
            position = p
            altitude += rng.gaussian(0.6)
            if segment >= route.count - 1 { break }
            emit(p, t: t, speed: speed, heading: heading, altitude: altitude, moving: true, event: nil, tamper: tamper(index))
            onFix(index, t)
            index += 1
        }
        t += interval
        advance(to: t)
        motionChange(moving: false, confidence: rng.int(70...98))
        emit(position, t: t, speed: 0, heading: -1, altitude: altitude, moving: false, event: "motionchange", tamper: .none)
        return (t, driven)
    }

    /// Stays at `place` from `start` until `end`, with a heartbeat fix every `heartbeat` seconds.
    func stay(at place: GeoPoint, from start: Double, until end: Double, heartbeatEvery: Double = 900,
              every: ((Double) -> Void)? = nil) {
        var t = start + heartbeatEvery
        while t < end, !isFull {
            advance(to: t)
            heartbeat()
            emit(place, t: t, speed: 0, heading: -1, altitude: 104 + rng.gaussian(1), moving: false, event: "heartbeat",
                 tamper: .none, activity: "still")
            every?(t)
            t += heartbeatEvery
        }
        advance(to: end)
    }

    /// A raw fix near `p` with realistic noise; tamper applied.
    func emit(_ p: GeoPoint, t: Double, speed: Double, heading: Double, altitude: Double, moving: Bool?, event: String?,
              tamper: FixTamper, activity: String? = nil) {
        var accuracy = moving == true ? rng.double(3.5...14) : rng.double(5...22)
        var point = p
        switch tamper {
        case .none:
            break
        case .teleport(let metres, let bearing):
            point = GeoMath.destination(p.latitude, p.longitude, bearing: bearing, metres: metres)
            accuracy = rng.double(5...12)
        case .lowAccuracy(let value):
            accuracy = value
        }
        // Consecutive fixes of a real receiver are correlated: at high rates the jitter shrinks.
        var sigma = min(accuracy / 3, 0.4 * fixInterval)
        if case .lowAccuracy = tamper { sigma = accuracy / 3 }
        let noise = abs(rng.gaussian(sigma))
        let noisy = GeoMath.destination(point.latitude, point.longitude, bearing: rng.double(0...359.9), metres: noise)
        let act = activity ?? (moving == true ? "in_vehicle" : "still")
        addFix(ProviderReading(t: t, latitude: noisy.latitude, longitude: noisy.longitude, accuracy: accuracy, speed: speed, heading: heading,
                      altitude: altitude, activity: act, confidence: rng.int(60...100), isMoving: moving, event: event))
    }
}
