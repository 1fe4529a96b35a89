import BGeoForensics
/// The first requests a run would send, built from the working copy without sending anything.
public enum ResyncDryRun {
    public static func requests(_ wc: WorkingCopy, settings: ResyncSettings, tokens: TokenRefresh.Tokens, url: String,
                                logLane: Bool, count: Int) throws -> [HTTPRequestSpec] {
        let builder = RequestBuilder(settings: settings)
        let bearer = settings.authorization != nil ? tokens.accessToken : nil
        if logLane {
            // Log batches are 100 rows; read enough rows for `count` requests.
            let entries = try wc.nextLogBatch(limit: 100 * count)
            return stride(from: 0, to: entries.count, by: 100).map { start in
                builder.logRequest(Array(entries[start..<min(start + 100, entries.count)]),
                                   url: settings.logURL ?? url, accessToken: bearer)
            }
        }
        var limit = settings.batchLimit
        let halved = try wc.progress("batch_limit")
        if halved > 0 { limit = min(limit ?? Int.max, Int(halved)) }
        let splitUntil = try wc.progress("split_until")
        var rows = try wc.nextBatch(limit: limit.map { $0 * count })
        var out: [HTTPRequestSpec] = []
        while !rows.isEmpty, out.count < count {
            let size = rows[0].id <= splitUntil ? 1 : min(limit ?? rows.count, rows.count)
            let batch = rows.prefix(size)
            rows.removeFirst(size)
            out.append(builder.locationRequest(batch.map { RequestBuilder.Record(uuid: $0.uuid, json: $0.json) },
                                               accessToken: bearer, url: url))
        }
        return out
    }
}
