import BGeoReader

/// Draws the complete trace as inline SVG (no xmlns: inline SVG in HTML does not need one, and
/// the report must not reference any URL). Styling comes from classes in the report stylesheet.
/// The accepted track is simplified for drawing (see `PolylineSimplifier.reportTolerance`);
/// markers that fall on the same pixel are drawn once. Every count shown comes from the full data.
public struct MapRenderer: Sendable {
    public var width: Double = 960
    public var height: Double = 560
    /// Above this many distinct markers, markers are merged into one path per class (no tooltips).
    public var maxIndividualMarkers = 1500
    public var gapSeconds: Double

    public init(gapSeconds: Double, width: Double = 960, height: Double = 560) {
        self.gapSeconds = gapSeconds
        self.width = width
        self.height = height
    }

    /// A legend row: CSS class of the swatch, label, exact count.
    public struct LegendItem: Sendable {
        public var cssClass: String
        public var label: String
        public var count: Int
    }

    /// What a drawing states beside its SVG: the legend and the track's simplification.
    public struct Drawn: Sendable {
        public var legend: [LegendItem]
        /// Points drawn for the accepted track after simplification (vs. accepted fixes).
        public var drawnTrackPoints: Int
        public var acceptedFixes: Int
    }

    /// A drawing with its SVG as one text.
    public struct Output: Sendable {
        public var svg: String
        public var drawn: Drawn
        public var legend: [LegendItem] { drawn.legend }
        public var drawnTrackPoints: Int { drawn.drawnTrackPoints }
        public var acceptedFixes: Int { drawn.acceptedFixes }
    }

    /// An adjusted or rejected fix as drawn: its class, pixel, raw pixel (adjusted), tooltip, row.
    private struct Marker {
        var cls: String
        var p: (x: Double, y: Double)
        var raw: (x: Double, y: Double)?
        var title: String
        var anchor: String
    }

    /// The class of an adjusted or rejected fix's marker (its CSS class and legend row).
    enum MarkerClass: Int, CaseIterable {
        case adjusted, rejectedAccuracy, rejectedTeleport, rejectedTime, rejectedOther

        /// A rejected fix's class, by the reason it is shown with.
        init(rejectedFor reason: String?) {
            switch reason {
            case "accuracy": self = .rejectedAccuracy
            case "teleport": self = .rejectedTeleport
            case "time": self = .rejectedTime
            default: self = .rejectedOther
            }
        }

        var cssClass: String {
            switch self {
            case .adjusted: return "adj"
            case .rejectedAccuracy: return "rej-accuracy"
            case .rejectedTeleport: return "rej-teleport"
            case .rejectedTime: return "rej-time"
            case .rejectedOther: return "rej-other"
            }
        }

        /// The class's legend row (the rows follow the cases' order).
        var legendLabel: String {
            switch self {
            case .adjusted: return "adjusted fixes (raw → adjusted)"
            case .rejectedAccuracy: return "rejected: accuracy"
            case .rejectedTeleport: return "rejected: teleport"
            case .rejectedTime: return "rejected: time"
            case .rejectedOther: return "rejected: other reason"
            }
        }
    }

    /// A marker's class and pixel: markers alike on one pixel are drawn once. A value, not a
    /// text: a trace of a million rejections asks once per fix.
    private struct MarkerPixel: Hashable {
        let markerClass: MarkerClass
        let x: Int
        let y: Int
    }

    /// The map's box grown by one fix: its output position, and its own when adjusted or rejected.
    static func including(_ bounds: GeoBounds?, _ f: DecidedFix) -> GeoBounds {
        let grown = GeoBounds.including(bounds, latitude: f.decision.latitude, longitude: f.decision.longitude)
        return f.decision.decision == .accepted ? grown : GeoBounds.including(grown, latitude: f.fix.latitude, longitude: f.fix.longitude)
    }

    /// Draws `trace` in two passes over its fixes: the bounding box (unless `sketch` has it, from
    /// the pass that wrote the trace), then the track (each gap-free stretch through the radial
    /// pass as it comes, Douglas–Peucker on what is left), the markers and the queue head. What
    /// is kept is what is drawn. The SVG goes into `svg` as it is made: a trace with 400,000
    /// gaps draws 60 MB, which a streaming page never holds whole.
    public func render(_ trace: some ReportFixSource, sketch: ReportTraceSketch? = nil, into svg: inout PageText) -> Drawn {
        var bounds: GeoBounds?
        if let sketch {
            bounds = sketch.fixBounds
        } else {
            trace.forEachFix { f in bounds = MapRenderer.including(bounds, f) }
        }
        for g in trace.geofences { bounds = GeoBounds.including(bounds, latitude: g.latitude, longitude: g.longitude) }
        let projection = MapProjection(bounds: bounds, width: width, height: height)
        typealias P = (x: Double, y: Double)
        svg += "<svg class=\"map\" viewBox=\"0 0 \(SVGFormat.n(width)) \(SVGFormat.n(height))\" role=\"img\" aria-label=\"Map of the trace\">"
        svg += "<rect class=\"map-bg\" x=\"0\" y=\"0\" width=\"\(SVGFormat.n(width))\" height=\"\(SVGFormat.n(height))\"/>"
        if trace.fixCount == 0 && trace.geofences.isEmpty {
            svg += "<text class=\"map-empty\" x=\"\(SVGFormat.n(width / 2))\" y=\"\(SVGFormat.n(height / 2))\" text-anchor=\"middle\">No fixes in this dump</text></svg>"
            return Drawn(legend: [], drawnTrackPoints: 0, acceptedFixes: 0)
        }

        // Accepted track, split at gaps; markers (adjusted and rejected), de-duplicated per pixel
        // and class; the queue head's fix.
        svg += "<g class=\"layer-track\">"
        var segment = PolylineSimplifier.RadialReducer(tolerance: PolylineSimplifier.reportTolerance)
        var firstPoint: P?, lastPoint: P?
        var previousTime: Double?
        var acceptedCount = 0
        var drawn = 0
        var gapLines: [(P, P, Double)] = []
        func drawSegment() {
            guard !segment.isEmpty else { return }
            let simple = PolylineSimplifier.douglasPeucker(segment.finish(), tolerance: PolylineSimplifier.reportTolerance)
            drawn += simple.count
            if simple.count == 1 {
                svg += "<circle class=\"trk-dot\" cx=\"\(SVGFormat.n(simple[0].x))\" cy=\"\(SVGFormat.n(simple[0].y))\" r=\"2\"/>"
                return
            }
            var d = ""
            d.reserveCapacity(simple.count * 12)
            for (i, p) in simple.enumerated() {
                d += (i == 0 ? "M" : "L") + SVGFormat.n(p.x) + " " + SVGFormat.n(p.y)
            }
            svg += "<path class=\"trk\" d=\"\(d)\"/>"
        }
        var markers: [Marker] = []
        var seen: Set<MarkerPixel> = []
        var counts = [Int](repeating: 0, count: MarkerClass.allCases.count)
        var headFix: DecidedFix?
        let head = trace.queueHeadUUID
        trace.forEachFix { f in
            let decision = f.decision.decision
            if headFix == nil, let head, f.fix.statedUUID == head { headFix = f }
            if decision != .rejected {
                acceptedCount += 1
                let p = projection.point(latitude: f.decision.latitude, longitude: f.decision.longitude)
                if let previousTime, f.fix.time - previousTime >= gapSeconds, let last = lastPoint {
                    gapLines.append((last, p, f.fix.time - previousTime))
                    drawSegment()
                }
                segment.add(p)
                if firstPoint == nil { firstPoint = p }
                lastPoint = p
                previousTime = f.fix.time
            }
            guard decision != .accepted else { return }
            let reason = f.reason
            let markerClass = decision == .adjusted ? MarkerClass.adjusted : MarkerClass(rejectedFor: reason)
            counts[markerClass.rawValue] += 1
            let p = decision == .adjusted
                ? projection.point(latitude: f.decision.latitude, longitude: f.decision.longitude)
                : projection.point(latitude: f.fix.latitude, longitude: f.fix.longitude)
            let pixel = MarkerPixel(markerClass: markerClass, x: Int(clamping: p.x + 0.5, to: Int.min...Int.max),
                                    y: Int(clamping: p.y + 0.5, to: Int.min...Int.max))
            guard seen.insert(pixel).inserted else { return }
            let cls = markerClass.cssClass
            let raw = decision == .adjusted ? projection.point(latitude: f.fix.latitude, longitude: f.fix.longitude) : nil
            var title = "\(decision.rawValue)"
            if let reason { title += " (\(reason))" }
            title += " at " + Timestamp.format(f.fix.time)
            if let a = f.fix.accuracy { title += ", accuracy \(DecimalText.format(a, places: 1)) m" }
            let evidence = f.fix.evidence
            title += " — " + evidence.label
            markers.append(Marker(cls: cls, p: p, raw: raw, title: title, anchor: evidence.anchor))
        }
        drawSegment()
        svg += "</g><g class=\"layer-gaps\">"
        for (a, b, seconds) in gapLines {
            svg += "<line class=\"gap\" x1=\"\(SVGFormat.n(a.x))\" y1=\"\(SVGFormat.n(a.y))\" x2=\"\(SVGFormat.n(b.x))\" y2=\"\(SVGFormat.n(b.y))\"><title>gap: no fix for \(SVGFormat.duration(seconds))</title></line>"
        }
        svg += "</g>"

        svg += "<g class=\"layer-markers\">"
        if markers.count <= maxIndividualMarkers {
            for m in markers {
                if let raw = m.raw {
                    svg += "<line class=\"adj-move\" x1=\"\(SVGFormat.n(raw.x))\" y1=\"\(SVGFormat.n(raw.y))\" x2=\"\(SVGFormat.n(m.p.x))\" y2=\"\(SVGFormat.n(m.p.y))\"/>"
                }
                let x = SVGFormat.n(m.p.x), y = SVGFormat.n(m.p.y)
                if m.cls == "adj" {
                    svg += "<a href=\"#\(m.anchor)\"><rect class=\"adj\" x=\"\(SVGFormat.n(m.p.x - 3))\" y=\"\(SVGFormat.n(m.p.y - 3))\" width=\"6\" height=\"6\"><title>\(HTMLEscape.escape(m.title))</title></rect></a>"
                } else {
                    svg += "<a href=\"#\(m.anchor)\"><circle class=\"\(m.cls)\" cx=\"\(x)\" cy=\"\(y)\" r=\"3.5\"><title>\(HTMLEscape.escape(m.title))</title></circle></a>"
                }
            }
        } else {
            // One path per class: a small cross per marker keeps a million rejections drawable.
            var paths: [String: String] = [:]
            for m in markers {
                paths[m.cls, default: ""] += "M\(SVGFormat.n(m.p.x - 2.5)) \(SVGFormat.n(m.p.y - 2.5))l5 5m0 -5l-5 5"
            }
            for cls in paths.keys.sorted() {
                svg += "<path class=\"\(cls) cross\" d=\"\(paths[cls]!)\"/>"
            }
        }
        svg += "</g>"

        // Start / end of the accepted track.
        if let first = firstPoint, let last = lastPoint {
            svg += "<circle class=\"start\" cx=\"\(SVGFormat.n(first.x))\" cy=\"\(SVGFormat.n(first.y))\" r=\"5\"><title>first accepted fix</title></circle>"
            svg += "<rect class=\"end\" x=\"\(SVGFormat.n(last.x - 4.5))\" y=\"\(SVGFormat.n(last.y - 4.5))\" width=\"9\" height=\"9\"><title>last accepted fix</title></rect>"
        }

        // Queue head: the oldest pending record, the next the engine will try to upload. Found
        // first so that its label has first choice of place; drawn above the geofences.
        var headMark: (p: P, title: String, anchor: String)?
        if let uuid = trace.queueHeadUUID {
            if let headFix {
                headMark = (projection.point(latitude: headFix.decision.latitude, longitude: headFix.decision.longitude),
                        "queue head (oldest pending record) \(uuid) at \(Timestamp.format(headFix.fix.time))", headFix.fix.evidence.anchor)
            } else if let g = trace.geofences.first(where: { $0.uuid == uuid }) {
                headMark = (projection.point(latitude: g.latitude, longitude: g.longitude),
                        "queue head (oldest pending record) \(uuid)", g.source.anchor)
            }
        }
        // Labels never cover each other, the scale bar or the north arrow.
        let bar = projection.scaleBar()
        let bx = 16.0, by = height - 18
        var labels = MapLabelPlacer(width: width, height: height)
        labels.reserve(.init(x0: bx - 6, y0: by - 20, x1: bx + bar.pixels + 6, y1: by + 10))
        labels.reserve(.init(x0: width - 36, y0: 8, x1: width - 12, y1: 50))
        let headLabel = headMark.flatMap { labels.place("queue head", x: $0.p.x, y: $0.p.y, clearance: 9) }

        // Geofence events.
        svg += "<g class=\"layer-geofences\">"
        var labelled: Set<String> = []
        for g in trace.geofences.prefix(2000) {
            let p = projection.point(latitude: g.latitude, longitude: g.longitude)
            let title = HTMLEscape.escape("geofence \(g.action) \(g.identifier) at \(Timestamp.format(g.time)) — \(g.source.label)")
            let cls = g.action.uppercased() == "EXIT" ? "geo geo-exit" : "geo"
            svg += "<a href=\"#\(g.source.anchor)\"><path class=\"\(cls)\" d=\"M\(SVGFormat.n(p.x)) \(SVGFormat.n(p.y - 7))l6 10h-12z\"><title>\(title)</title></path></a>"
            let labelKey = g.identifier + "@\(Int(clamping: p.x / 40, to: Int.min...Int.max)):\(Int(clamping: p.y / 20, to: Int.min...Int.max))"
            if labelled.count < 40, labelled.insert(labelKey).inserted,
               let spot = labels.place(g.identifier, x: p.x, y: p.y, clearance: 6) {
                svg += "<text class=\"geo-label\" x=\"\(SVGFormat.n(spot.x))\" y=\"\(SVGFormat.n(spot.y))\" text-anchor=\"\(spot.anchor)\">\(HTMLEscape.escape(g.identifier))</text>"
            }
        }
        svg += "</g>"

        if let headMark { svg += headMarker(headMark.p, title: headMark.title, anchor: headMark.anchor, label: headLabel) }
        let headDrawn = headMark != nil

        // Scale bar (bottom left) and north arrow (top right).
        svg += "<g class=\"scale\"><rect class=\"scale-bg\" x=\"\(SVGFormat.n(bx - 6))\" y=\"\(SVGFormat.n(by - 20))\" width=\"\(SVGFormat.n(bar.pixels + 12))\" height=\"30\"/>"
        svg += "<path class=\"scale-bar\" d=\"M\(SVGFormat.n(bx)) \(SVGFormat.n(by - 5))v5h\(SVGFormat.n(bar.pixels))v-5\"/>"
        svg += "<text class=\"scale-label\" x=\"\(SVGFormat.n(bx + bar.pixels / 2))\" y=\"\(SVGFormat.n(by - 8))\" text-anchor=\"middle\">\(MapProjection.distanceLabel(bar.metres))</text></g>"
        svg += "<g class=\"north\"><path d=\"M\(SVGFormat.n(width - 24)) 14l7 18l-7 -5l-7 5z\"/><text x=\"\(SVGFormat.n(width - 24))\" y=\"46\" text-anchor=\"middle\">N</text></g>"
        svg += "</svg>"

        var legend = [LegendItem(cssClass: "trk", label: "accepted track (fixes)", count: acceptedCount - counts[MarkerClass.adjusted.rawValue])]
        for markerClass in MarkerClass.allCases where counts[markerClass.rawValue] > 0 {
            legend.append(LegendItem(cssClass: markerClass.cssClass, label: markerClass.legendLabel, count: counts[markerClass.rawValue]))
        }
        if !gapLines.isEmpty { legend.append(LegendItem(cssClass: "gap", label: "gaps ≥ \(SVGFormat.duration(gapSeconds)) between accepted fixes (dashed)", count: gapLines.count)) }
        if !trace.geofences.isEmpty { legend.append(LegendItem(cssClass: "geo", label: "geofence events", count: trace.geofences.count)) }
        if headDrawn { legend.append(LegendItem(cssClass: "head", label: "queue head (oldest pending)", count: 1)) }
        return Drawn(legend: legend, drawnTrackPoints: drawn, acceptedFixes: acceptedCount)
    }

    /// The drawing with its SVG as one text (tests, small traces).
    public func render(_ trace: some ReportFixSource, sketch: ReportTraceSketch? = nil) -> Output {
        var svg = PageText()
        let drawn = render(trace, sketch: sketch, into: &svg)
        return Output(svg: svg.text, drawn: drawn)
    }

    private func headMarker(_ p: (x: Double, y: Double), title: String, anchor: String, label: MapLabelPlacer.Spot?) -> String {
        var svg = "<a href=\"#\(anchor)\"><circle class=\"head\" cx=\"\(SVGFormat.n(p.x))\" cy=\"\(SVGFormat.n(p.y))\" r=\"9\"><title>\(HTMLEscape.escape(title))</title></circle></a>"
        if let label {
            svg += "<text class=\"head-label\" x=\"\(SVGFormat.n(label.x))\" y=\"\(SVGFormat.n(label.y))\" text-anchor=\"\(label.anchor)\">queue head</text>"
        }
        return svg
    }
}
