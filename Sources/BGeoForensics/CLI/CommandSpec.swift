import BGeoReader

/// One option a command accepts.
public struct OptionSpec: Sendable {
    /// Long name with dashes, e.g. `--since`.
    public var name: String
    /// Optional one-letter alias, e.g. `-o`.
    public var short: String?
    /// Placeholder for the value (`TIME`); nil for a flag that takes none.
    public var valueName: String?
    public var help: String
    /// May be given more than once (`--set A=1 --set B=2`).
    public var repeatable: Bool

    public init(_ name: String, short: String? = nil, value: String? = nil, repeatable: Bool = false, help: String) {
        self.name = name
        self.short = short
        self.valueName = value
        self.help = help
        self.repeatable = repeatable
    }

    public var isFlag: Bool { valueName == nil }
}

/// One positional argument.
public struct PositionalSpec: Sendable {
    public var name: String
    public var help: String
    public var required: Bool
    /// The last positional only: takes every remaining word (`PATH…`).
    public var variadic: Bool

    public init(_ name: String, required: Bool = true, variadic: Bool = false, help: String) {
        self.name = name
        self.help = help
        self.required = required
        self.variadic = variadic
    }
}

/// A subcommand's interface: what it takes, and its `--help` text generated from that.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var positionals: [PositionalSpec]
    public var options: [OptionSpec]

    public init(name: String, abstract: String, discussion: String = "", positionals: [PositionalSpec] = [],
                options: [OptionSpec]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.positionals = positionals
        self.options = options + [
            OptionSpec("--color", value: "WHEN", help: "never | auto | always: colour in text views (auto: on a terminal, unless NO_COLOR is set)."),
            OptionSpec("--help", short: "-h", help: "Show this help."),
        ]
    }

    /// The help text: usage line, abstract, arguments, options, wrapped to `width` columns (80,
    /// or the terminal's width when the caller knows it).
    public func helpText(tool: String = "bgeo-forensics", width: Int = 80) -> String {
        var lines: [String] = []
        let positionalUsage = positionals.map { p in
            let word = p.name + (p.variadic ? "…" : "")
            return p.required ? word : "[\(word)]"
        }.joined(separator: " ")
        lines.append("Usage: \(tool) \(name) \(positionalUsage) [options]".replacingOccurrences(of: "  ", with: " "))
        lines.append("")
        lines.append(contentsOf: CommandSpec.wrap(abstract, width: width))
        if !discussion.isEmpty {
            // Paragraphs are re-flowed; their hand-made line breaks do not survive a narrow screen.
            for paragraph in discussion.components(separatedBy: "\n\n") {
                lines.append("")
                lines.append(contentsOf: CommandSpec.wrap(paragraph.split(separator: "\n").joined(separator: " "), width: width))
            }
        }
        if !positionals.isEmpty {
            lines.append("")
            lines.append("Arguments:")
            for p in positionals { lines.append(CommandSpec.row(p.name, p.help, width: width)) }
        }
        lines.append("")
        lines.append("Options:")
        for option in options {
            var left = option.short.map { "\($0), " } ?? ""
            left += option.name
            if let value = option.valueName { left += " \(value)" }
            lines.append(CommandSpec.row(left, option.help + (option.repeatable ? " (repeatable)" : ""), width: width))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An option's row: its name in the left column, its help wrapped in the right one.
    static func row(_ left: String, _ right: String, width: Int = 80) -> String {
        let column = 28
        let padded = "  " + left
        let wrapped = wrap(right, width: max(20, width - column))
        let indent = String(repeating: " ", count: column)
        var lines: [String] = []
        if padded.count >= column {
            lines.append(padded)
            lines += wrapped.map { indent + $0 }
        } else {
            lines.append(padded + String(repeating: " ", count: column - padded.count) + (wrapped.first ?? ""))
            lines += wrapped.dropFirst().map { indent + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    /// Parses `arguments` (the words after the command name).
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("-") || word == "-" {
                result.positionals.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
                name = String(word[..<eq])
                inlineValue = String(word[word.index(after: eq)...])
            }
            guard let option = options.first(where: { $0.name == name || $0.short == name }) else {
                let hint = Suggestion.closest(to: name, among: options.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError(message: "unknown option '\(name)' for '\(self.name)'\(hint)", command: self.name)
            }
            if option.isFlag {
                guard inlineValue == nil else {
                    throw UsageError(message: "\(option.name) takes no value", command: self.name)
                }
                result.flags.insert(option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "\(option.name) needs a value (\(option.valueName ?? "VALUE"))", command: self.name)
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, result.values[option.name] != nil {
                throw UsageError(message: "\(option.name) was given twice", command: self.name)
            }
            result.values[option.name, default: []].append(value)
        }
        if result.flags.contains("--help") { return result }
        let required = positionals.filter(\.required).count
        if result.positionals.count < required {
            let missing = positionals.filter(\.required)[result.positionals.count].name
            throw UsageError(message: "missing \(missing)", command: name)
        }
        if result.positionals.count > positionals.count, positionals.last?.variadic != true {
            throw UsageError(message: "unexpected argument '\(result.positionals[positionals.count])'", command: name)
        }
        return result
    }
}

/// A command line that does not fit the command: exit code 2 with this message and a pointer to --help.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var command: String?

    public init(message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}

/// The parsed words of one command line, with typed reads that throw UsageError.
public struct ParsedArguments: Sendable {
    public var positionals: [String] = []
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []

    public init() {}

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    public func int(_ name: String, range: ClosedRange<Int>? = nil) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let n = Int(text) else { throw UsageError(message: "\(name) takes a whole number, not '\(text)'") }
        if let range, !range.contains(n) {
            throw UsageError(message: "\(name) must be between \(range.lowerBound) and \(range.upperBound), not \(n)")
        }
        return n
    }

    public func double(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let n = Double(text), n.isFinite else { throw UsageError(message: "\(name) takes a number, not '\(text)'") }
        return n
    }

    /// A point in time: ISO-8601 (`2026-07-24T09:00:00Z`, offsets allowed) or a date (`2026-07-24`,
    /// UTC). A date alone is the start of that day, or with `endOfDay` (`--until`) its last instant,
    /// so `--until 2026-07-24` keeps the whole of the 24th.
    public func time(_ name: String, endOfDay: Bool = false) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        if text.count == 10, let t = Timestamp.parse(text + "T00:00:00Z") {
            return endOfDay ? t + 86_400 - 0.001 : t
        }
        if let t = Timestamp.parse(text) { return t }
        if text.count == 16, let t = Timestamp.parse(text + ":00Z") { return t }
        if text.count == 19, let t = Timestamp.parse(text + "Z") { return t }
        throw UsageError(message: "\(name) takes an ISO-8601 time such as 2026-07-24T09:00:00Z or a date such as 2026-07-24, not '\(text)'")
    }

    /// `--since` and `--until` together: a date alone in `--until` means the end of that day, and
    /// a window that ends before it starts is refused (it could only ever match nothing).
    public func timeWindow() throws(UsageError) -> (since: Double?, until: Double?) {
        let since = try time("--since")
        let until = try time("--until", endOfDay: true)
        if let since, let until, since > until {
            throw UsageError(message: "--since \(value("--since")!) is later than --until \(value("--until")!): the window would be empty")
        }
        return (since, until)
    }

    /// A duration with its unit: `90s`, `15m`, `2h`, `1d`, `1h30m`. A bare number is refused
    /// (is `--gap 15` seconds or minutes?), except a plain 0, which means the same in every unit
    /// (`fleet --timeout 0` = none); `positive` also refuses zero.
    public func duration(_ name: String, positive: Bool = false) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        if !text.isEmpty, text.allSatisfy({ $0.isNumber || $0 == "." }) {
            if Double(text) == 0 {
                if positive { throw UsageError(message: "\(name) must be longer than 0, not '\(text)'") }
                return 0
            }
            throw UsageError(message: "\(name) needs a unit: \(text)s, \(text)m or \(text)h? (durations are written like 90s, 15m, 2h or 1d)")
        }
        guard let d = DurationText.parse(text), d.isFinite else {
            throw UsageError(message: "\(name) takes a duration such as 90s, 15m or 2h, not '\(text)'")
        }
        if positive, d <= 0 { throw UsageError(message: "\(name) must be longer than 0, not '\(text)'") }
        return d
    }

    /// The listing format from `--format`, with `--json` as its shorthand: the two together are
    /// refused unless they agree, so `--json --format csv` never silently picks one.
    public func rowFormat() throws(UsageError) -> RowFormat {
        let named = try choice("--format", RowFormat.allCases.map(\.rawValue)).flatMap(RowFormat.init(rawValue:))
        if flag("--json") {
            if let named, named != .json {
                throw UsageError(message: "--json and --format \(named.rawValue) contradict each other (--json means --format json); give one")
            }
            return .json
        }
        return named ?? .table
    }

    /// One of a fixed set of words.
    public func choice(_ name: String, _ allowed: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard allowed.contains(text) else {
            let hint = Suggestion.closest(to: text, among: allowed).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError(message: "\(name) takes one of \(allowed.joined(separator: ", ")), not '\(text)'\(hint)")
        }
        return text
    }
}

/// "Did you mean …?": the closest known word to a mistyped one, by edit distance.
public enum Suggestion {
    /// The candidate nearest to `word` (case-insensitive), when it is close enough to be a typo:
    /// at most a third of the word's length away (at least 1, at most 3 edits), or a prefix of
    /// one candidate only.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = word.lowercased()
        guard !typed.isEmpty else { return nil }
        let limit = min(3, max(1, typed.count / 3))
        var best: (word: String, distance: Int)?
        for candidate in candidates {
            let d = distance(typed, candidate.lowercased())
            if d <= limit, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        if let best { return best.word }
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(typed) }
        return typed.count >= 3 && prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            previous2 = previous
            previous = current
        }
        return previous[b.count]
    }
}
