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
        self.options = options + [OptionSpec("--help", short: "-h", help: "Show this help.")]
    }

    /// The help text: usage line, abstract, arguments, options.
    public func helpText(tool: String = "bgeo-forensics") -> String {
        var lines: [String] = []
        let positionalUsage = positionals.map { p in
            let word = p.name + (p.variadic ? "…" : "")
            return p.required ? word : "[\(word)]"
        }.joined(separator: " ")
        lines.append("Usage: \(tool) \(name) \(positionalUsage) [options]".replacingOccurrences(of: "  ", with: " "))
        lines.append("")
        lines.append(abstract)
        if !discussion.isEmpty {
            lines.append("")
            lines.append(discussion)
        }
        if !positionals.isEmpty {
            lines.append("")
            lines.append("Arguments:")
            for p in positionals { lines.append(CommandSpec.row(p.name, p.help)) }
        }
        lines.append("")
        lines.append("Options:")
        for option in options {
            var left = option.short.map { "\($0), " } ?? ""
            left += option.name
            if let value = option.valueName { left += " \(value)" }
            lines.append(CommandSpec.row(left, option.help + (option.repeatable ? " (repeatable)" : "")))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func row(_ left: String, _ right: String) -> String {
        let width = 28
        let padded = "  " + left
        if padded.count >= width { return padded + "\n" + String(repeating: " ", count: width) + right }
        return padded + String(repeating: " ", count: width - padded.count) + right
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
                throw UsageError(message: "unknown option '\(name)' for '\(self.name)'", command: self.name)
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

    /// A point in time: ISO-8601 (`2026-07-24T09:00:00Z`, offsets allowed) or a date (`2026-07-24`, UTC midnight).
    public func time(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        if let t = Timestamp.parse(text) { return t }
        if text.count == 10, let t = Timestamp.parse(text + "T00:00:00Z") { return t }
        if text.count == 16, let t = Timestamp.parse(text + ":00Z") { return t }
        if text.count == 19, let t = Timestamp.parse(text + "Z") { return t }
        throw UsageError(message: "\(name) takes an ISO-8601 time such as 2026-07-24T09:00:00Z, not '\(text)'")
    }

    /// A duration: `90`, `90s`, `15m`, `2h`, `1d`.
    public func duration(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let d = DurationText.parse(text) else {
            throw UsageError(message: "\(name) takes a duration such as 90s, 15m or 2h, not '\(text)'")
        }
        return d
    }

    /// One of a fixed set of words.
    public func choice(_ name: String, _ allowed: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard allowed.contains(text) else {
            throw UsageError(message: "\(name) takes one of \(allowed.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }
}
