import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The map draws one marker per class and pixel (`MapRenderer.MarkerPixel`, a value since a
/// trace of a million rejections asked a text set once per fix) and counts every fix in its
/// legend: same-pixel fixes of one class are drawn once, of two classes twice, and no count is
/// taken from what is drawn.
@Suite struct MapMarkerTests {
    static func decided(_ i: Int, latitude: Double, longitude: Double, _ decision: Decision, _ reason: RejectReason? = nil,
                        output: (Double, Double)? = nil, loggedReason: String? = nil) -> DecidedFix {
        var fix = Fix(index: i, time: 1_784_880_000 + Double(i) * 10, latitude: latitude, longitude: longitude, accuracy: 12,
                      source: .queue, rowId: Int64(i + 1), uuid: "u\(i)")
        fix.loggedReason = loggedReason
        let out = output ?? (latitude, longitude)
        return DecidedFix(fix: fix, decision: FixDecision(index: i, decision: decision, reason: reason, latitude: out.0,
                                                          longitude: out.1, odometer: 0))
    }

    @Test func oneMarkerPerClassAndPixelEveryFixCounted() {
        var fixes: [DecidedFix] = []
        // An accepted track along a line, so the map's box is wide.
        for i in 0..<20 { fixes.append(Self.decided(i, latitude: 52 + Double(i) * 0.01, longitude: 21, .accepted)) }
        // Five rejections for accuracy on one spot, two for teleport on the same spot, one for
        // time elsewhere, two with a reason only the engine logged, three adjusted onto one spot.
        for i in 20..<25 { fixes.append(Self.decided(i, latitude: 52.05, longitude: 21, .rejected, .accuracy)) }
        for i in 25..<27 { fixes.append(Self.decided(i, latitude: 52.05, longitude: 21, .rejected, .teleport)) }
        fixes.append(Self.decided(27, latitude: 52.15, longitude: 21, .rejected, .time))
        for i in 28..<30 { fixes.append(Self.decided(i, latitude: 52.1 + Double(i - 28) * 0.05, longitude: 21, .rejected, loggedReason: "stale")) }
        for i in 30..<33 {
            fixes.append(Self.decided(i, latitude: 52.0 + Double(i) * 0.001, longitude: 21.001, .adjusted, output: (52.12, 21)))
        }
        fixes.sort { $0.fix.time < $1.fix.time }
        let output = MapRenderer(gapSeconds: 3600).render(ReportTrace(fixes: fixes))
        let legend = Dictionary(uniqueKeysWithValues: output.legend.map { ($0.cssClass, $0.count) })
        #expect(legend["trk"] == 20)
        #expect(legend["adj"] == 3)
        #expect(legend["rej-accuracy"] == 5)
        #expect(legend["rej-teleport"] == 2)
        #expect(legend["rej-time"] == 1)
        #expect(legend["rej-other"] == 2)
        #expect(output.acceptedFixes == 23)
        func drawn(_ element: String, _ cls: String) -> Int {
            output.svg.components(separatedBy: "<\(element) class=\"\(cls)\"").count - 1
        }
        #expect(drawn("circle", "rej-accuracy") == 1)
        #expect(drawn("circle", "rej-teleport") == 1)
        #expect(drawn("circle", "rej-time") == 1)
        #expect(drawn("circle", "rej-other") == 2)
        #expect(drawn("rect", "adj") == 1)
        // No class without a fix gets a legend row.
        let none = MapRenderer(gapSeconds: 3600).render(ReportTrace(fixes: Array(fixes.prefix(20))))
        #expect(none.legend.map(\.cssClass) == ["trk"])
    }
}
