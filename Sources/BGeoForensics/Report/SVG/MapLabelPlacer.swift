import BGeoReader

/// Places the map's text labels so that none is drawn over another (issue 26: the "queue head"
/// label covered a geofence's "depot" label when both were at the same place) and none leaves
/// the map. Each label tries a few spots around its marker, in order, and takes the first whose
/// box meets no label placed before it; a label with no free spot is left out (its marker keeps
/// its hover title). Labels are few (≤ 41), so every box is compared with every other.
struct MapLabelPlacer {
    /// Where a label goes: its text's anchor point and SVG `text-anchor`.
    struct Spot: Equatable {
        var x: Double
        var y: Double
        var anchor: String
    }

    /// A label's box in map pixels.
    struct Box: Equatable {
        var x0: Double, y0: Double, x1: Double, y1: Double

        func meets(_ other: Box) -> Bool {
            x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1
        }
    }

    let width: Double
    let height: Double
    private(set) var placed: [Box] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Marks an area (a marker, the scale bar) that labels must not cover.
    mutating func reserve(_ box: Box) { placed.append(box) }

    /// The first free spot for `text` around the marker at (`x`, `y`) whose radius is `clearance`,
    /// reserved for it; nil when every spot is taken.
    mutating func place(_ text: String, x: Double, y: Double, clearance: Double, fontSize: Double = 11) -> Spot? {
        let w = Self.width(of: text, fontSize: fontSize)
        let gap = clearance + 3
        let candidates: [Spot] = [
            Spot(x: x + gap, y: y - 4, anchor: "start"),
            Spot(x: x - gap, y: y + fontSize + 5, anchor: "end"),
            Spot(x: x - gap, y: y - 4, anchor: "end"),
            Spot(x: x + gap, y: y + fontSize + 5, anchor: "start"),
            Spot(x: x, y: y - clearance - 5, anchor: "middle"),
            Spot(x: x, y: y + clearance + fontSize + 3, anchor: "middle"),
            Spot(x: x + gap, y: y - fontSize - 10, anchor: "start"),
            Spot(x: x - gap, y: y + 2 * fontSize + 10, anchor: "end"),
        ]
        for spot in candidates {
            let box = Self.box(spot, width: w, fontSize: fontSize)
            guard box.x0 >= 0, box.y0 >= 0, box.x1 <= width, box.y1 <= height else { continue }
            guard !placed.contains(where: { $0.meets(box) }) else { continue }
            placed.append(box)
            return spot
        }
        return nil
    }

    /// A label's estimated width: glyphs of a sans-serif average about 0.6 em; the halo (stroke
    /// 3 px) adds 2 px a side.
    static func width(of text: String, fontSize: Double = 11) -> Double {
        Double(text.count) * fontSize * 0.6 + 4
    }

    /// The box a label of `width` pixels takes when drawn at `spot` (baseline at `spot.y`).
    static func box(_ spot: Spot, width w: Double, fontSize: Double) -> Box {
        let x0: Double
        switch spot.anchor {
        case "end": x0 = spot.x - w
        case "middle": x0 = spot.x - w / 2
        default: x0 = spot.x
        }
        return Box(x0: x0, y0: spot.y - fontSize - 1, x1: x0 + w, y1: spot.y + 4)
    }
}
