import Foundation

/// Finds any of many known secrets in bytes, in one pass, in every form a dump or an output can
/// hold them: as they are; JSON-escaped (`1\/\/0g…` for `1//0g…`); percent-encoded; inside
/// base64, standard or URL-safe, at any of the three byte alignments (the encoded run that only
/// the secret's bytes decide, so a key base64'd inside a longer blob is found too); and cut off —
/// a prefix of `cutPrefix` or more characters of a secret that stops where the text stops or at a
/// character no token continues with (a body truncated at 1,024 characters, `…`). Text written
/// with other escapes (`sk\u005flive…`, `%2f`) is searched through `DecodedView` by the redactor.
///
/// A dump can hold hundreds of learned tokens and millions of cells: a window slides over the
/// bytes by a table of two-byte blocks (Wu–Manber), so most positions are never looked at, and
/// only positions where a form may start compare against the forms sharing their first `window` bytes.
package final class SecretSearch: Sendable {
    /// A match: bytes `start..<end` of the searched buffer are (a form of) `secrets[secret]`.
    package struct Hit: Sendable, Equatable {
        package var start: Int
        package var end: Int
        package var secret: Int
    }

    /// The secrets, in the order given (a `Hit` names one by index).
    package let secrets: [String]
    /// Every form's bytes, back to back: form `i` is `formBytes[formStart[i] ..< formStart[i + 1]]`.
    /// One buffer, not an array per form: a run that learns 100,000 tokens holds a million forms.
    private let formBytes: [UInt8]
    private let formStart: [Int]
    /// Per form: the secret it encodes, and whether a cut-off prefix of it counts.
    private let formSecret: [Int32]
    private let formAllowsCut: [Bool]
    /// Forms (indices) by a hash of their first `window` bytes, which every hit holds: a position
    /// is checked against the forms that can match there, not every form sharing four bytes
    /// (tokens minted by one server share their first bytes: `tok_…`, `eyJhbGci…`).
    private let byWindow: WindowTable
    /// Bytes of the longest form (the overlap a chunked scan needs).
    package let longest: Int
    /// Every hit holds the first `window` bytes of its form (a whole form, or a cut-off prefix of
    /// at least `cutPrefix`): the search slides a window this long (Wu–Manber).
    private let window: Int
    /// For each two-byte block, how far the window may move on when its last two bytes are that
    /// block without passing the end of a form's first `window` bytes; 0 where one may end.
    private let shifts: [UInt8]

    /// A cut-off secret counts from this many characters on.
    static let cutPrefix = 16
    /// Shorter secrets are not looked for inside base64 (too short to be told from chance).
    static let base64Minimum = 12

    /// Secrets shorter than four bytes are ignored (the redactor learns none below six).
    init(secrets list: some Sequence<String>) {
        var seen = Set<ExactText>()
        let secrets = list.filter { $0.utf8.count >= 4 && seen.insert(ExactText($0)).inserted }
        var formBytes: [UInt8] = [], formStart: [Int] = [0], owner: [Int32] = [], cut: [Bool] = []
        // About ten bytes of forms per byte of secret (itself, escaped, six base64 cores): room
        // for them at once, not grown by doubling (up to twice the 88 MB 200,000 tokens need).
        formBytes.reserveCapacity(secrets.reduce(0) { $0 + 11 * $1.utf8.count })
        var shortest = Int.max, longest = 0
        for (index, secret) in secrets.enumerated() {
            for (form, allowsCut) in SecretSearch.forms(of: Array(secret.utf8)) where form.count >= 4 {
                formBytes.append(contentsOf: form)
                formStart.append(formBytes.count)
                owner.append(Int32(index))
                cut.append(allowsCut)
                shortest = min(shortest, form.count)
                longest = max(longest, form.count)
            }
        }
        let window = min(SecretSearch.cutPrefix, owner.isEmpty ? 4 : shortest)
        var shifts = [UInt8](repeating: UInt8(window - 1), count: 65536)
        var keys: [UInt64] = []
        keys.reserveCapacity(owner.count)
        formBytes.withUnsafeBufferPointer { bytes in
            for form in owner.indices {
                let start = formStart[form]
                keys.append(SecretSearch.windowKey(bytes.baseAddress! + start, window))
                for end in 2...window {
                    let block = Int(bytes[start + end - 2]) << 8 | Int(bytes[start + end - 1])
                    shifts[block] = min(shifts[block], UInt8(window - end))
                }
            }
        }
        self.secrets = secrets
        self.formBytes = formBytes
        self.formStart = formStart
        formSecret = owner
        formAllowsCut = cut
        byWindow = WindowTable(keys: keys)
        self.longest = longest
        self.window = window
        self.shifts = shifts
    }

    var isEmpty: Bool { secrets.isEmpty }

    /// Every form of `secret` worth looking for, each with whether a cut-off prefix counts.
    static func forms(of secret: [UInt8]) -> [(bytes: [UInt8], allowsCut: Bool)] {
        var result: [(bytes: [UInt8], allowsCut: Bool)] = [(secret, true)]
        func add(_ form: [UInt8], cut: Bool) {
            if !result.contains(where: { $0.bytes == form }) { result.append((form, cut)) }
        }
        if secret.contains(UInt8(ascii: "/")) {
            add(secret.flatMap { $0 == UInt8(ascii: "/") ? [UInt8(ascii: "\\"), $0] : [$0] }, cut: true)
        }
        add(percentEncoded(secret), cut: true)
        if secret.count >= base64Minimum {
            for alignment in 0..<3 {
                let core = base64Core(secret, alignment: alignment)
                add(core, cut: false)
                add(core.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }, cut: false)
            }
        }
        return result
    }

    /// RFC 3986 percent-encoding: everything but the unreserved characters as `%XX`.
    static func percentEncoded(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in bytes {
            if isAlphanumeric(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~") {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return out
    }

    /// The base64 characters that only `secret`'s bytes decide when it starts `alignment` bytes
    /// into a 3-byte group of whatever was encoded around it.
    static func base64Core(_ secret: [UInt8], alignment: Int) -> [UInt8] {
        var padded = [UInt8](repeating: 0, count: alignment) + secret
        while padded.count % 3 != 0 { padded.append(0) }
        let encoded = Array(Data(padded).base64EncodedString().utf8)
        let first = (8 * alignment + 5) / 6
        let end = 8 * (alignment + secret.count) / 6
        guard first < end, end <= encoded.count else { return [] }
        return Array(encoded[first..<end])
    }

    /// FNV-1a of `count` bytes (the window of a form or of the searched text).
    @inline(__always) static func windowKey(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for i in 0..<count { hash = (hash ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    @inline(__always) static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A)
    }

    /// Calls `body` with each hit in `bytes`, left to right, the longest at each position, none
    /// overlapping. The window's last two bytes decide how far it moves (most positions are never
    /// looked at); a position where a form's first bytes may end is checked against the forms
    /// whose first `window` bytes it holds.
    func forEachHit(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Hit) -> Void) {
        let count = bytes.count
        guard !formSecret.isEmpty, count >= window, let p = bytes.baseAddress else { return }
        shifts.withUnsafeBufferPointer { shifts in
            // The window covers bytes[end - window ..< end].
            var end = window
            while end <= count {
                let skip = Int(shifts[Int(p[end - 2]) << 8 | Int(p[end - 1])])
                guard skip == 0 else {
                    end += skip
                    continue
                }
                let i = end - window
                if let best = bestHit(at: i, in: p, count: count) {
                    body(best)
                    end = best.end + window
                } else {
                    end += 1
                }
            }
        }
    }

    /// The longest hit starting at `i`, if any.
    @inline(__always)
    private func bestHit(at i: Int, in p: UnsafePointer<UInt8>, count: Int) -> Hit? {
        guard let candidates = byWindow.forms(of: SecretSearch.windowKey(p + i, window)) else { return nil }
        var best: Hit?
        for index in candidates {
            let start = formStart[Int(index)], formCount = formStart[Int(index) + 1] - start
            let length = formBytes.withUnsafeBufferPointer { bytes in
                // From the first byte: forms share a key by their window's hash, not its bytes.
                let f = bytes.baseAddress! + start
                var n = 0
                let limit = min(formCount, count - i)
                while n < limit, p[i + n] == f[n] { n += 1 }
                return n
            }
            let whole = length == formCount
            let cut = !whole && formAllowsCut[Int(index)] && length >= SecretSearch.cutPrefix
                && (i + length == count || !SecretSearch.isAlphanumeric(p[i + length]))
            guard whole || cut, length > (best.map { $0.end - $0.start } ?? 0) else { continue }
            best = Hit(start: i, end: i + length, secret: Int(formSecret[Int(index)]))
        }
        return best
    }

    /// `bytes` with every hit of `hitsInEveryReading` replaced by its secret's fingerprint; nil
    /// when there is none. The one rewrite the redactor (text) and sanitize (blobs) share.
    package func fingerprintingHits(in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let hits = hitsInEveryReading(bytes)
        guard !hits.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + hits.count * 32)
        var copied = 0
        for hit in hits {
            out.append(contentsOf: bytes[copied..<hit.start])
            out.append(contentsOf: Redactor.fingerprint(secrets[hit.secret]).utf8)
            copied = hit.end
        }
        out.append(contentsOf: bytes[copied...])
        return out
    }

    /// Hits in `bytes`, and in its JSON-unescaped and percent-decoded readings (`DecodedView`),
    /// mapped back to `bytes` and merged: sorted, none overlapping.
    package func hitsInEveryReading(_ bytes: UnsafeBufferPointer<UInt8>) -> [Hit] {
        var hits: [Hit] = []
        forEachHit(in: bytes) { hits.append($0) }
        for reading in DecodedView.Reading.allCases {
            // Decoded without positions first: a reading with no hit (nearly all) needs none.
            guard DecodedView.hasHit(reading, bytes, self), let view = DecodedView(reading, bytes) else { continue }
            view.decoded.withUnsafeBufferPointer { decoded in
                forEachHit(in: decoded) { hit in
                    hits.append(Hit(start: view.start[hit.start], end: view.end[hit.end - 1], secret: hit.secret))
                }
            }
        }
        guard hits.count > 1 else { return hits }
        hits.sort { $0.start != $1.start ? $0.start < $1.start : $0.end > $1.end }
        var merged: [Hit] = []
        for hit in hits {
            if let last = merged.last, hit.start < last.end {
                if hit.end > last.end { merged[merged.count - 1].end = hit.end }
                continue
            }
            merged.append(hit)
        }
        return merged
    }

    /// Occurrences of any secret in `bytes` and its decoded readings, up to `limit`.
    package func countMatches(in raw: UnsafeRawBufferPointer, limit: Int = .max) -> Int {
        guard !formSecret.isEmpty else { return 0 }
        let bytes = raw.bindMemory(to: UInt8.self)
        var found = 0
        forEachHit(in: bytes) { _ in found += 1 }
        guard found < limit else { return found }
        for reading in DecodedView.Reading.allCases {
            DecodedView.withDecodedBytes(reading, bytes) { forEachHit(in: $0) { _ in found += 1 } }
        }
        return min(found, limit)
    }

    /// True when `text` holds any secret in any form.
    func matches(_ text: String) -> Bool {
        guard !formSecret.isEmpty else { return false }
        var copy = text
        return copy.withUTF8 { countMatches(in: UnsafeRawBufferPointer($0), limit: 1) > 0 }
    }
}

/// The forms of a `SecretSearch` by the hash of their first bytes: the forms of one hash are a
/// run of `forms`, found through an open-addressing table of the hashes (flat arrays: a million
/// forms cost a few bytes each, not an array each).
private struct WindowTable: Sendable {
    /// Per slot: a hash, and the run of `forms` holding its forms (`runStart` -1: empty slot).
    private let slotKeys: [UInt64]
    private let runStart: [Int32]
    private let runEnd: [Int32]
    /// Form indices grouped by hash, each group in the forms' order.
    private let forms: [Int32]
    private let mask: Int

    /// `keys[i]` is the hash of form `i`.
    init(keys: [UInt64]) {
        var size = 16
        while size < keys.count * 2 { size <<= 1 }
        mask = size - 1
        var slotKeys = [UInt64](repeating: 0, count: size)
        // First each slot's forms are counted in `runEnd` (-1: an empty slot); then the runs are
        // laid out slot by slot (`runStart`) and `runEnd` becomes each run's cursor as its forms
        // are placed, in the forms' order, ending where the run ends. A count table and each
        // form's slot beside them were 22 MB of the peak at 1,600,000 forms (stop 51).
        var runEnd = [Int32](repeating: -1, count: size)
        for key in keys {
            var slot = Int(truncatingIfNeeded: key) & mask
            while runEnd[slot] >= 0 && slotKeys[slot] != key { slot = (slot + 1) & mask }
            if runEnd[slot] < 0 { slotKeys[slot] = key; runEnd[slot] = 0 }
            runEnd[slot] += 1
        }
        var runStart = [Int32](repeating: -1, count: size)
        var next: Int32 = 0
        for slot in 0..<size where runEnd[slot] >= 0 {
            runStart[slot] = next
            next += runEnd[slot]
            runEnd[slot] = runStart[slot]
        }
        var forms = [Int32](repeating: 0, count: keys.count)
        for (form, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: key) & mask
            while runStart[slot] < 0 || slotKeys[slot] != key { slot = (slot + 1) & mask }
            forms[Int(runEnd[slot])] = Int32(form)
            runEnd[slot] += 1
        }
        self.slotKeys = slotKeys
        self.runStart = runStart
        self.runEnd = runEnd
        self.forms = forms
    }

    /// The forms whose first bytes hash to `key`, in the forms' order; nil when none.
    @inline(__always) func forms(of key: UInt64) -> ArraySlice<Int32>? {
        var slot = Int(truncatingIfNeeded: key) & mask
        while runStart[slot] >= 0 {
            if slotKeys[slot] == key { return forms[Int(runStart[slot])..<Int(runEnd[slot])] }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
