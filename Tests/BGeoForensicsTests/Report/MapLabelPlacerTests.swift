import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 26, item 6: the "queue head" label was drawn over the "depot" geofence label when both
/// markers were at the same place.
@Suite struct MapLabelPlacerTests {
    @Test func labelsAtTheSamePlaceDoNotOverlap() throws {
        var placer = MapLabelPlacer(width: 800, height: 400)
        var boxes: [MapLabelPlacer.Box] = []
        for text in ["queue head", "depot <north>", "depot <north>", "warehouse 7"] {
            let placed = placer.place(text, x: 400, y: 200, clearance: 9)
            let spot = try #require(placed)
            boxes.append(MapLabelPlacer.box(spot, width: MapLabelPlacer.width(of: text), fontSize: 11))
        }
        for i in boxes.indices { for j in boxes.indices where i < j { #expect(!boxes[i].meets(boxes[j]), "\(i) meets \(j)") } }
    }

    @Test func aLabelAtTheMapsEdgeTurnsInward() throws {
        var placer = MapLabelPlacer(width: 800, height: 400)
        let placed = placer.place("a long geofence name", x: 795, y: 5, clearance: 6)
        let spot = try #require(placed)
        let box = MapLabelPlacer.box(spot, width: MapLabelPlacer.width(of: "a long geofence name"), fontSize: 11)
        #expect(box.x0 >= 0 && box.x1 <= 800 && box.y0 >= 0 && box.y1 <= 400, "\(box)")
    }

    @Test func aReservedAreaIsNeverCoveredAndAFullPlaceDropsTheLabel() {
        var placer = MapLabelPlacer(width: 100, height: 40)
        placer.reserve(.init(x0: 0, y0: 0, x1: 100, y1: 40))
        let placed = placer.place("x", x: 50, y: 20, clearance: 3)
        #expect(placed == nil)
    }
}
