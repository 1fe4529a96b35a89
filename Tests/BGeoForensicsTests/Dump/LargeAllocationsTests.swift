import Testing
@testable import BGeoReader

/// The allocator takes the large-block setting the tool makes at start (glibc's `mallopt`, found
/// by name): a wrong name or option number would be refused and the setting silently lost.
@Suite struct LargeAllocationsTests {
    @Test func theAllocatorTakesTheSetting() {
        #expect(LargeAllocations.returnedWhenFreed())
        #expect(LargeAllocations.threshold == 2 << 20)
    }
}
