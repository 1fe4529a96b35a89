import BGeoForensics
/// Builds the SDK's requests, byte-compatible with the native uploader (HTTP upload guide):
/// body shaped by `httpRootProperty`, `batchSync`, `params` and `extras`; headers from the config;
/// `Authorization: Bearer <accessToken>` when authorization is configured. Pure: no I/O.
public struct RequestBuilder: Sendable {
    public let settings: ResyncSettings
    /// Config extras merged into stored records as bytes (nil when the config has none).
    private let extrasMerger: ExtrasMerger?

    public init(settings: ResyncSettings) {
        self.settings = settings
        extrasMerger = settings.extras.isEmpty ? nil : ExtrasMerger(extras: settings.extras)
    }

    /// One queued record: its uuid and its stored JSON text.
    public struct Record: Sendable, Equatable {
        public var uuid: String
        public var json: String
        public init(uuid: String, json: String) {
            self.uuid = uuid
            self.json = json
        }
    }

    /// The location request for `records` (oldest first). `url` overrides the settings' url.
    public func locationRequest(_ records: [Record], accessToken: String?, url: String? = nil) -> HTTPRequestSpec {
        HTTPRequestSpec(method: settings.method, url: url ?? settings.url ?? "", headers: headers(accessToken: accessToken),
                        body: locationBodyBytes(records))
    }

    /// The location request for `count` stored records whose upload bytes are already
    /// comma-joined in `storedRecords` (each appended with `appendStoredRecord`; see
    /// `storedRecordsFrame`); nil when the batch needs the general path. Same bytes as
    /// `locationRequest(_:accessToken:url:)` for the same records.
    public func locationRequest(storedRecords: [UInt8], count: Int, accessToken: String?, url: String? = nil) -> HTTPRequestSpec? {
        guard let frame = storedRecordsFrame(count: count) else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(frame.head.count + storedRecords.count + frame.tail.count)
        body.append(contentsOf: frame.head)
        body.append(contentsOf: storedRecords)
        body.append(contentsOf: frame.tail)
        return HTTPRequestSpec(method: settings.method, url: url ?? settings.url ?? "", headers: headers(accessToken: accessToken),
                               body: body)
    }

    /// Content-Type, then the config's headers (a config Content-Type or Authorization is replaced
    /// by ours), then the bearer token when there is one.
    public func headers(accessToken: String?) -> [HTTPHeader] {
        var list = [HTTPHeader("Content-Type", "application/json")]
        for header in settings.headers {
            let lowered = header.name.lowercased()
            if lowered == "content-type" { continue }
            if lowered == "authorization", accessToken != nil { continue }
            list.append(HTTPHeader(header.name, header.value))
        }
        if let accessToken { list.append(HTTPHeader("Authorization", "Bearer " + accessToken)) }
        return list
    }

    /// The body text. Records are sent as stored; config extras are merged into each record's
    /// `extras` member (`recordText`).
    public func locationBody(_ records: [Record]) -> String {
        String(decoding: locationBodyBytes(records), as: UTF8.self)
    }

    /// The body as bytes. The common case (no lone record merged into the root) copies each
    /// stored record's UTF-8 (extras merged as bytes) straight into one buffer sized up front: a
    /// batch of 100 records used to cost more in String joining than in SQLite and the socket together.
    public func locationBodyBytes(_ records: [Record]) -> [UInt8] {
        let writer = JSONWriter()
        let merged = !settings.batchSync && records.count == 1 && settings.rootProperty == "."
        if merged, let object = (try? JSONParser.parse(recordText(records[0])))?.objectValue {
            // "." merges the lone record's fields into the root; params join the root without
            // overwriting the record's own fields.
            var root = object
            for member in settings.params where root[member.key] == nil { root[member.key] = member.value }
            return Array(writer.string(.object(root)).utf8)
        }
        let frame = frame()
        var out: [UInt8] = []
        let extraBytes = extrasMerger == nil ? 0 : 64 + settings.extras.count * 32
        out.reserveCapacity(frame.head.count + records.reduce(0) { $0 + $1.json.utf8.count + 1 + extraBytes } + frame.tail.count)
        out.append(contentsOf: frame.head)
        let sent = settings.batchSync ? records[...] : records.prefix(1)
        for (index, record) in sent.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendRecord(record.json, to: &out)
        }
        if sent.isEmpty && !settings.batchSync { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: frame.tail)
        return out
    }

    /// The bytes before and after the records when they are nested under a key: `{params…,"key":[`
    /// and `]}` (or without brackets when not batching).
    func frame() -> (head: [UInt8], tail: [UInt8]) {
        let writer = JSONWriter()
        // "." cannot hold an array: a batch nests under the default key instead.
        let key = settings.rootProperty == "." ? "location" : settings.rootProperty
        var head = "{"
        for member in settings.params where member.key != key {
            writer.writeString(member.key, into: &head)
            head += ":"
            writer.write(member.value, into: &head, indent: 0)
            head += ","
        }
        writer.writeString(key, into: &head)
        head += settings.batchSync ? ":[" : ":"
        return (Array(head.utf8), Array((settings.batchSync ? "]}" : "}").utf8))
    }

    /// The frame for a batch of stored records (comma-joined, between head and tail), or nil
    /// when this batch needs the general path: a lone record merged into the root, or several
    /// records without batchSync.
    public func storedRecordsFrame(count: Int) -> (head: [UInt8], tail: [UInt8])? {
        guard count >= 1 else { return nil }
        if !settings.batchSync && (count != 1 || settings.rootProperty == ".") { return nil }
        return frame()
    }

    /// A record's upload text: stored text when there are no config extras; otherwise config
    /// extras merged under the record's own (the record's keys win; see `ExtrasMerger`).
    public func recordText(_ record: Record) -> String {
        guard extrasMerger != nil else { return record.json }
        var out: [UInt8] = []
        appendRecord(record.json, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func appendRecord(_ json: String, to out: inout [UInt8]) {
        var text = json
        text.withUTF8 { appendStoredRecord($0, to: &out) }
    }

    /// Appends one stored record's upload bytes (valid UTF-8) to a body: as stored, with config
    /// extras merged when there are any. The one place both body paths turn a record into bytes.
    func appendStoredRecord(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard let extrasMerger else {
            out.append(contentsOf: bytes)
            return
        }
        if extrasMerger.append(bytes, to: &out) { return }
        // Text the byte scan leaves alone (escaped or duplicate keys): parsed, merged, written.
        out.append(contentsOf: mergedByParsing(String(decoding: bytes, as: UTF8.self)).utf8)
    }

    /// The general merge: the record parsed, extras merged in, written back (key order kept).
    func mergedByParsing(_ json: String) -> String {
        guard case .object(var object)? = try? JSONParser.parse(json) else { return json }
        switch object["extras"] {
        case nil, .null?:
            object["extras"] = .object(settings.extras)
        case .object(let own)?:
            var combined = settings.extras
            for member in own { combined[member.key] = member.value }
            object["extras"] = .object(combined)
        default:
            return json  // extras of another type: leave the record untouched
        }
        return JSONWriter().string(.object(object))
    }

    /// The log lane: `{"events":[…]}` with level as its name, message/data only when present.
    public func logRequest(_ entries: [LogEntry], url: String, accessToken: String?) -> HTTPRequestSpec {
        HTTPRequestSpec(method: "POST", url: url, headers: headers(accessToken: accessToken),
                        body: Array(RequestBuilder.logBody(entries).utf8))
    }

    public static func logBody(_ entries: [LogEntry]) -> String {
        let events: [JSONValue] = entries.map { entry in
            var object: JSONObject = ["ts": .string(entry.tsText), "level": .string(entry.levelName),
                                      "src": .string(entry.src), "event": .string(entry.event)]
            if let message = entry.message { object["message"] = .string(message) }
            if let text = entry.dataText { object["data"] = (try? JSONParser.parse(text)) ?? .string(text) }
            return .object(object)
        }
        return JSONWriter().string(.object(["events": .array(events)]))
    }
}
