import BGeoForensics

/// `manpage`: the manual page in roff, generated from every command's spec (the package installs it).
enum ManPageCommand: CLICommand {
    static let spec = CommandSpec(
        name: "manpage",
        abstract: "Print the manual page (roff) that the package installs: read it with man -l.",
        discussion: "Generated from the same specs as --help, e.g. bgeo-forensics manpage | man -l -",
        options: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        CommandSupport.stdout.write(ManPage(commands: CompletionsCommand.allSpecs()).roff())
        CommandSupport.stdout.flush()
        return 0
    }
}
