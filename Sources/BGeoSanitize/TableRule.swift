import BGeoForensics
import BGeoSQLite
/// Which cells of a table hold what, so each gets its rule: the queue's record column, the
/// log's message and data (whose rule depends on the row's `src` and `event`), the state's value
/// (whose rule depends on its key), and plain text everywhere else.
enum TableRule: Sendable {
    case queue(record: Int)
    case log(src: Int?, event: Int?, message: Int?, data: Int?)
    case state(key: Int, value: Int)
    /// Any other table: text scrubbed, JSON documents walked, blobs searched for secrets; a
    /// column named like a secret (`password`, `api_key`, `refresh_token`) fingerprinted whole.
    case generic(secretColumns: Set<Int>)

    static func rule(for table: SourceTable, layout: DumpLayout) -> TableRule {
        let index = { (name: String) in table.columns.firstIndex(of: name) }
        if table.name == layout.queueTable, let record = index(layout.recordColumn) { return .queue(record: record) }
        if table.name == "log_entries" {
            return .log(src: index("src"), event: index("event"), message: index("message"), data: index("data"))
        }
        if table.name == "state", let key = index("key"), let value = index("value") { return .state(key: key, value: value) }
        return .generic(secretColumns: Set(table.columns.indices.filter { SecretRules.isSensitiveKey(table.columns[$0]) }))
    }

    /// True when this log row was written by the app (`src` js): customer data.
    func isAppLine(_ cells: [CellValue]) -> Bool {
        guard case .log(let src?, _, _, _) = self, case .text(let value) = cells[src] else { return false }
        return value == "js"
    }

    /// The row's `event` (log) or `key` (state).
    func tag(_ cells: [CellValue]) -> String? {
        switch self {
        case .log(_, let event?, _, _): if case .text(let value) = cells[event] { return value }
        case .state(let key, _): if case .text(let value) = cells[key] { return value }
        default: break
        }
        return nil
    }
}
