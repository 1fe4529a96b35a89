import BGeoReader
import Foundation

/// A bash, zsh or fish completion script, generated from the same command specs as `--help`, so
/// it offers exactly the commands and options the binary accepts: command names, then each
/// command's options, and files or folders where an argument names one.
public struct ShellCompletion: Sendable {
    /// A shell `completions` writes a script for.
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    public var shell: Shell
    /// Every command, in the order they are offered (that of `--help`).
    public var commands: [CommandSpec]
    public var tool: String

    public init(shell: Shell, commands: [CommandSpec], tool: String = ToolInfo.name) {
        self.shell = shell
        self.commands = commands
        self.tool = tool
    }

    /// The script, ready to be sourced or saved where the shell looks for completions.
    public func script() -> String {
        switch shell {
        case .bash: bash()
        case .zsh: zsh()
        case .fish: fish()
        }
    }

    /// What an argument's placeholder asks for. The specs name values for people (`DUMP`, `FILE.json`,
    /// `DIR`), so the placeholder's stem is what tells a file from a folder from a free word.
    enum Argument: String {
        case file, folder, word

        init(placeholder: String) {
            switch placeholder.split(separator: ".").first.map(String.init) ?? placeholder {
            case "DIR", "FOLDER": self = .folder
            case "FILE", "PATH", "DUMP", "OUT": self = .file
            default: self = .word
            }
        }
    }

    /// What a command's positional arguments complete to: files if any names a file.
    static func positionalArgument(_ command: CommandSpec) -> Argument {
        let kinds = command.positionals.map { Argument(placeholder: $0.name) }
        return kinds.contains(.file) ? .file : kinds.contains(.folder) ? .folder : .word
    }

    // The top level: `help COMMAND`, `--help` and `--version` are the tool's own, not a command's.
    static let helpAbstract = "Show a command's help (the same as COMMAND --help)."
    static let toolHelp = "Show the list of commands."
    static let versionHelp = "Print the version."

    func bash() -> String {
        let function = "_" + tool.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        let names = commands.map(\.name).joined(separator: " ")
        var out = [
            "# bash completion for \(tool), generated from its command specs by `\(tool) completions bash`.",
            "\(function)() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    if [[ $COMP_CWORD -eq 1 ]]; then",
            "        mapfile -t COMPREPLY < <(compgen -W \(Self.quoted(names + " help --help -h --version")) -- \"$cur\")",
            "        return",
            "    fi",
            "    local options files folders words positional",
            "    case ${COMP_WORDS[1]} in",
            "        help)",
            "            [[ $COMP_CWORD -eq 2 ]] && mapfile -t COMPREPLY < <(compgen -W \(Self.quoted(names)) -- \"$cur\")",
            "            return ;;",
        ]
        for command in commands {
            let valued = { (kind: Argument) in
                command.options.filter { $0.valueName.map(Argument.init(placeholder:)) == kind }
                    .flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }.joined(separator: " ")
            }
            let options = command.options.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }.joined(separator: " ")
            out.append("        \(Self.quoted(command.name)))")
            out.append("            options=\(Self.quoted(options)) files=\(Self.quoted(valued(.file)))")
            out.append("            folders=\(Self.quoted(valued(.folder))) words=\(Self.quoted(valued(.word)))")
            out.append("            positional=\(Self.positionalArgument(command).rawValue) ;;")
        }
        out += [
            "        *) return ;;",
            "    esac",
            "    # The word after an option that takes a value is that value, whatever it looks like.",
            "    local kind=$positional",
            "    if [[ \" $files \" == *\" $prev \"* ]]; then kind=file",
            "    elif [[ \" $folders \" == *\" $prev \"* ]]; then kind=folder",
            "    elif [[ \" $words \" == *\" $prev \"* ]]; then return",
            "    elif [[ $cur == -* ]]; then",
            "        mapfile -t COMPREPLY < <(compgen -W \"$options\" -- \"$cur\")",
            "        return",
            "    fi",
            "    case $kind in",
            "        file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;",
            "        folder) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;",
            "    esac",
            "}",
            "complete -F \(function) \(tool)",
        ]
        return out.joined(separator: "\n") + "\n"
    }

    func zsh() -> String {
        let function = "_" + tool
        let describe = commands.map { Self.quoted(Self.zshName($0.name) + ":" + $0.abstract) }
            + [Self.quoted("help:" + Self.helpAbstract)]
        var out = [
            "#compdef \(tool)",
            "# zsh completion for \(tool), generated from its command specs by `\(tool) completions zsh`.",
            "",
            "\(function)() {",
            "    local curcontext=$curcontext state line",
            "    local -a commands",
            "    commands=(",
        ]
        out += describe.map { "        " + $0 }
        out += [
            "    )",
            "    _arguments -C \\",
            "        \(Self.quoted("(- *)-h[\(Self.zshExplanation(Self.toolHelp))]")) \\",
            "        \(Self.quoted("(- *)--help[\(Self.zshExplanation(Self.toolHelp))]")) \\",
            "        \(Self.quoted("(- *)--version[\(Self.zshExplanation(Self.versionHelp))]")) \\",
            "        '1: :->command' '*:: :->argument' && return",
            "    case $state in",
            "        command) _describe -t commands command commands ;;",
            "        argument)",
            "            case $words[1] in",
            "                help) _describe -t commands command commands ;;",
        ]
        for command in commands {
            var specs: [String] = []
            for option in command.options {
                let explanation = "[" + Self.zshExplanation(option.help) + "]"
                let value = option.valueName.map { ":" + Self.zshMessage($0) + ":" + Self.zshAction(Argument(placeholder: $0)) } ?? ""
                // A repeatable option stays on offer; others are offered once, and an alias excludes its twin.
                let names = [option.short, option.name].compactMap { $0 }
                let guardWords = option.repeatable ? "*" : names.count > 1 ? "(" + names.joined(separator: " ") + ")" : ""
                if let short = option.short { specs.append(Self.quoted(guardWords + short + explanation + value)) }
                // `--name=` takes its value as the next word or after `=`, as the parser does.
                specs.append(Self.quoted(guardWords + option.name + (option.isFlag ? "" : "=") + explanation + value))
            }
            for positional in command.positionals {
                let action = Self.zshAction(Argument(placeholder: positional.name))
                let prefix = positional.variadic ? "*:" : positional.required ? ":" : "::"
                specs.append(Self.quoted(prefix + Self.zshMessage(positional.name) + ":" + action))
            }
            out.append("                \(Self.quoted(command.name)))")
            out.append("                    _arguments -S \\")
            out += specs.enumerated().map { "                        " + $1 + ($0 == specs.count - 1 ? " ;;" : " \\") }
        }
        out += [
            "            esac",
            "            ;;",
            "    esac",
            "}",
            "",
            "\(function) \"$@\"",
        ]
        return out.joined(separator: "\n") + "\n"
    }

    func fish() -> String {
        let c = "complete -c \(tool)"
        var out = [
            "# fish completion for \(tool), generated from its command specs by `\(tool) completions fish`.",
            "# No file names unless an argument names a file (then -F, or -a with the folders).",
            "\(c) -f",
            "\(c) -n __fish_use_subcommand -s h -l help -d \(Self.fishQuoted(Self.toolHelp))",
            "\(c) -n __fish_use_subcommand -l version -d \(Self.fishQuoted(Self.versionHelp))",
            "\(c) -n __fish_use_subcommand -a help -d \(Self.fishQuoted(Self.helpAbstract))",
            "\(c) -n \(Self.fishQuoted("__fish_seen_subcommand_from help")) -a \(Self.fishQuoted(commands.map(\.name).joined(separator: " ")))",
        ]
        for command in commands {
            let when = "-n " + Self.fishQuoted("__fish_seen_subcommand_from " + command.name)
            out.append("\(c) -n __fish_use_subcommand -a \(Self.fishQuoted(command.name)) -d \(Self.fishQuoted(command.abstract))")
            switch Self.positionalArgument(command) {
            case .file: out.append("\(c) \(when) -F")
            case .folder: out.append("\(c) \(when) -a '(__fish_complete_directories)'")
            case .word: break
            }
            for option in command.options {
                var words = [c, when]
                if let short = option.short { words.append("-s " + Self.fishQuoted(String(short.dropFirst()))) }
                words.append("-l " + Self.fishQuoted(String(option.name.dropFirst(2))))
                switch option.valueName.map(Argument.init(placeholder:)) {
                case nil: break
                case .file: words.append("-r -F")
                case .folder: words.append("-x -a '(__fish_complete_directories)'")
                case .word: words.append("-x")
                }
                words.append("-d " + Self.fishQuoted(option.help))
                out.append(words.joined(separator: " "))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// A POSIX-shell single-quoted word (bash and zsh): `'` is closed, escaped and reopened.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A fish single-quoted word: there `\` and `'` are escaped with a backslash.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// An option's explanation inside zsh's `[…]`: brackets and backslashes escaped, one line.
    static func zshExplanation(_ text: String) -> String {
        oneLine(text).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
    }

    /// A value's message between zsh's `:` separators, where a colon would end it.
    static func zshMessage(_ text: String) -> String {
        oneLine(text).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
    }

    /// A command name before `:` in `_describe`'s list, where a colon would end it.
    static func zshName(_ text: String) -> String { zshMessage(text) }

    /// zsh's action: files, folders, or a lone space (show the message, complete nothing).
    static func zshAction(_ kind: Argument) -> String {
        switch kind {
        case .file: "_files"
        case .folder: "_files -/"
        case .word: " "
        }
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }
}
