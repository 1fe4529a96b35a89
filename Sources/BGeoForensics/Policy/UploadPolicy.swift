import BGeoReader

/// Everything an engine's documented upload policy says, as one value: how responses are
/// classified, how long to back off, how poison batches are isolated, how refresh works.
public struct UploadPolicy: Sendable, Equatable {
    public enum Engine: String, Sendable, CaseIterable {
        case bgeo, longping

        /// The SDK's own spelling, for sentences.
        public var productName: String { self == .bgeo ? "BGeo" : "LongPing" }
    }

    public var engine: Engine
    public var classifier: ResponseClassifier
    public var backoff: BackoffSchedule
    /// BGeo: a dropped multi-record batch is re-sent one record at a time so only the poison goes.
    public var splitDroppedBatch: Bool
    /// LongPing: a record is dropped after this many counted attempts (other 4xx); nil for BGeo.
    public var maxAttemptsBeforeDrop: Int?
    /// How many times a refresh-and-retry is tried for one batch before it is treated as retry.
    public var refreshRetries: Int
    /// Whether a 2xx resets the consecutive-failure counter (both engines: yes).
    public var successResetsBackoff: Bool

    public init(engine: Engine, classifier: ResponseClassifier, backoff: BackoffSchedule, splitDroppedBatch: Bool,
                maxAttemptsBeforeDrop: Int?, refreshRetries: Int, successResetsBackoff: Bool) {
        self.engine = engine
        self.classifier = classifier
        self.backoff = backoff
        self.splitDroppedBatch = splitDroppedBatch
        self.maxAttemptsBeforeDrop = maxAttemptsBeforeDrop
        self.refreshRetries = refreshRetries
        self.successResetsBackoff = successResetsBackoff
    }

    /// The BGeo SDK's policy (HTTP upload & authorization guide).
    public static let bgeo = UploadPolicy(engine: .bgeo, classifier: .bgeo, backoff: .bgeo, splitDroppedBatch: true,
                                          maxAttemptsBeforeDrop: nil, refreshRetries: 1, successResetsBackoff: true)

    /// The LongPing SDK's policy (offline queue, retries & backoff guide).
    public static let longping = UploadPolicy(engine: .longping, classifier: .longping, backoff: .longping,
                                              splitDroppedBatch: false, maxAttemptsBeforeDrop: 3, refreshRetries: 1,
                                              successResetsBackoff: true)

    public static func named(_ engine: Engine) -> UploadPolicy { engine == .bgeo ? .bgeo : .longping }

    /// The default policy for a dump's format.
    public static func forFormat(_ format: DumpFormat) -> UploadPolicy { format == .longping ? .longping : .bgeo }

    /// Why checking a dump of `format` against this policy would mislead, or nil when it fits: a
    /// log written by one engine, checked against another's rules, breaks them by design, and
    /// those "violations" would be blamed on an engine that never promised them (issue 25).
    public func misfit(_ format: DumpFormat, dumpName: String) -> String? {
        let own = UploadPolicy.forFormat(format).engine
        guard own != engine else { return nil }
        return "--policy \(engine.rawValue) does not fit \(dumpName): it is a \(format.rawValue) dump, written by the \(own.productName) engine, whose log follows the \(own.rawValue) policy. Leave --policy out (or give --policy \(own.rawValue))."
    }

    /// The 4xx statuses this policy treats as poison (for explanations).
    public var poisonStatuses: [Int] {
        classifier.exact.filter { $0.value == .drop }.map(\.key).sorted()
    }
}
