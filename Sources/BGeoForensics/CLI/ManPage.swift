import BGeoReader

/// The tool's manual page in roff (the man(7) macros), rendered from the same command specs as
/// `--help`, so the installed page cannot say anything the binary does not accept.
public struct ManPage: Sendable {
    /// Every command, in the order the page describes them (that of `--help`).
    public var commands: [CommandSpec]
    public var tool: String
    public var version: String
    /// One line on what the tool is for: the page's NAME.
    public var summary: String

    public init(commands: [CommandSpec], tool: String = ToolInfo.name, version: String = ToolInfo.version,
                summary: String = ToolInfo.summary) {
        self.commands = commands
        self.tool = tool
        self.version = version
        self.summary = summary
    }

    /// The page's source, for `man -l` or `/usr/share/man/man1/<tool>.1`: NAME, SYNOPSIS,
    /// DESCRIPTION, then one subsection per command with its usage, abstract, discussion,
    /// arguments and options.
    public func roff() -> String {
        let name = Self.escaped(tool)
        // No date in .TH: the same specs give the same bytes, so the package build is reproducible.
        var out = [".TH \"\(Self.escaped(tool.uppercased()))\" 1 \"\" \"\(name) \(Self.escaped(version))\" \"User Commands\""]
        out.append(".SH NAME")
        let what = summary.hasSuffix(".") ? String(summary.dropLast()) : summary
        out.append(Self.line("\(tool) - \(what)"))
        out.append(".SH SYNOPSIS")
        out.append("\\fB\(name)\\fR \\fIcommand\\fR [\\fIarguments\\fR] [\\fIoptions\\fR]")
        out.append(".br")
        out.append("\\fB\(name)\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR")
        out.append(".br")
        out.append("\\fB\(name) \\-\\-version\\fR")
        out.append(".SH DESCRIPTION")
        out.append(Self.line(what.prefix(1).uppercased() + what.dropFirst() + "."))
        out.append(".PP")
        out.append("Every command below also prints its part of this page with \\fB\\-\\-help\\fR.")
        out.append(".SH COMMANDS")
        for command in commands { out += section(command) }
        return out.joined(separator: "\n") + "\n"
    }

    /// One command: its usage line as the subsection heading, then what `--help` says.
    func section(_ command: CommandSpec) -> [String] {
        let positionals = command.positionals.map { p in
            let word = "\\fI\(Self.escaped(p.name))\\fR" + (p.variadic ? Self.escaped("…") : "")
            return p.required ? word : "[\(word)]"
        }
        let usage = (["\\fB\(Self.escaped(tool)) \(Self.escaped(command.name))\\fR"] + positionals + ["[\\fIoptions\\fR]"])
        var out = [".SS", usage.joined(separator: " "), Self.line(command.abstract)]
        if !command.discussion.isEmpty {
            out.append(".PP")
            for raw in command.discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                // Leading blanks would break the filled paragraph; a blank line starts a new one.
                let text = raw.drop { $0 == " " || $0 == "\t" }
                out.append(text.isEmpty ? ".PP" : Self.line(String(text)))
            }
        }
        if !command.positionals.isEmpty {
            out += [".PP", "Arguments:"]
            for p in command.positionals { out += [".TP", "\\fI\(Self.escaped(p.name))\\fR", Self.line(p.help)] }
        }
        out += [".PP", "Options:"]
        for option in command.options {
            var term = option.short.map { "\\fB\(Self.escaped($0))\\fR, " } ?? ""
            term += "\\fB\(Self.escaped(option.name))\\fR"
            if let value = option.valueName { term += " \\fI\(Self.escaped(value))\\fR" }
            out += [".TP", term, Self.line(option.help + (option.repeatable ? " (repeatable)" : ""))]
        }
        return out
    }

    /// `text` as one roff text line: escaped, and guarded by `\&` when it would start with `.` or
    /// `'`, which roff reads as a request (the line would vanish or do something else).
    static func line(_ text: String) -> String {
        let escaped = escaped(text)
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    /// Text with roff's special characters escaped: `\` (the escape character itself), `-` (a
    /// plain `-` is a hyphen, which man renders as one, so an option copied from the page would
    /// not work), and anything outside ASCII as `\[uXXXX]` (groff reads its input as Latin-1 unless
    /// told otherwise, which would garble `…` or `—`). Line breaks and tabs become spaces and other
    /// control characters are dropped: none of them means anything in a help text.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            // roff fills text anyway, and a line break inside one would let the next line start a request.
            case "\n", "\r", "\t": out += " "
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: continue
            case _ where scalar.value > 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
