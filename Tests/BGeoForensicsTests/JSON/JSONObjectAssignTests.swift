import Foundation
import Testing
@testable import BGeoReader

/// `JSONObject.assign` sets members as the subscript does, `mappingValues` maps each member where
/// it stands, both in linear time (regression, stop 48: the redactor copied objects
/// through the subscript, whose look-up along the members made a 100,000-key object quadratic).
@Suite struct JSONObjectAssignTests {
    /// What the subscript gives, member by member (the definition `assign` keeps).
    static func bySubscript(_ start: JSONObject, _ members: [(key: String, value: JSONValue)]) -> JSONObject {
        var object = start
        for member in members { object[member.key] = member.value }
        return object
    }

    @Test(arguments: [0, 1, 5, 31, 32, 33, 200, 2_000])
    func assignGivesWhatTheSubscriptGives(_ count: Int) {
        var generator = SystemRandomNumberGenerator()
        // Few distinct keys so that many repeat; "é" written two ways is one key to Swift's String.
        let keys = (0..<max(1, count / 3)).map { "k\($0)" } + ["\u{e9}", "e\u{301}"]
        for round in 0..<20 {
            let members = (0..<count).map { i in (key: keys.randomElement(using: &generator)!, value: JSONValue.int(Int64(i))) }
            let start: JSONObject = round % 2 == 0 ? JSONObject() : JSONObject(Array(members.prefix(count / 2)))
            var assigned = start
            assigned.assign(contentsOf: members)
            let expected = JSONObjectAssignTests.bySubscript(start, members)
            #expect(assigned == expected, "count \(count), round \(round)")
        }
    }

    /// Regression (stop 51): a repeated name was collapsed to its first place and last value, so
    /// the redacted copy of `{"status":500,…,"status":200}` (every listing's) read 200 where the
    /// timeline, the subscript and `json_extract` read 500. Every member now stays where it stands.
    @Test func mappingValuesKeepsEveryMemberWhereItStands() {
        let object = JSONObject([(key: "a", value: .int(1)), (key: "b", value: .int(2)), (key: "a", value: .int(3))])
        let doubled = object.mappingValues { _, value in .int(Int64((value.intValue ?? 0) * 2)) }
        #expect(doubled == JSONObject([(key: "a", value: .int(2)), (key: "b", value: .int(4)), (key: "a", value: .int(6))]))
        #expect(doubled["a"] == .int(2))
    }

    /// 200,000 members in well under a second (the subscript's way: minutes).
    @Test func aWideObjectIsCopiedInLinearTime() {
        let members = (0..<200_000).map { (key: "key\($0)", value: JSONValue.int(Int64($0))) }
        let started = Date()
        let copy = JSONObject(members).mappingValues { _, value in value }
        let seconds = Date().timeIntervalSince(started)
        #expect(copy.count == 200_000)
        #expect(copy["key199999"] == .int(199_999))
        #expect(seconds < 10, "copying took \(seconds) s")
    }
}
