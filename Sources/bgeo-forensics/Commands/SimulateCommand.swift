import BGeoForensics
import BGeoSimulation
import Foundation

/// `simulate`: writes realistic, deterministic dumps for named scenarios (samples, fixtures, benchmarks).
enum SimulateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Write a realistic simulated dump for a named scenario.",
        discussion: """
            Deterministic: the same scenario, seed and --records give byte-identical files (a WAL scenario
            also writes PATH-wal). Without --scenario, --records N writes the large benchmark shape
            (N queued records, about N log rows). Regenerate every sample: simulate --all -o Samples/
            """,
        options: [
            OptionSpec("--scenario", value: "NAME", help: "One of: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))."),
            OptionSpec("--output", short: "-o", value: "PATH", help: "Dump file to write (a folder with --all). An existing file is replaced only if simulate wrote it."),
            OptionSpec("--seed", value: "N", help: "PRNG seed (default \(Simulator.defaultSeed))."),
            OptionSpec("--records", value: "N", help: "Scale up to N location records (repeats the scenario's day)."),
            OptionSpec("--all", help: "Write every scenario into the --output folder as NAME.db."),
            OptionSpec("--list", help: "List the scenarios with one-line descriptions."),
            OptionSpec("--force", help: "Replace an existing file even if it is not a simulated dump."),
            CommandSupport.jsonOption,
        ])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let json = arguments.flag("--json")
        if arguments.flag("--list") {
            if json {
                CommandSupport.printJSON(.array(Scenario.allCases.map {
                    ["name": .string($0.rawValue), "description": .string($0.summary)]
                }))
            } else {
                for scenario in Scenario.allCases {
                    let name = scenario.rawValue
                    CommandSupport.stdout.line(name + String(repeating: " ", count: max(1, 18 - name.count)) + scenario.summary)
                }
            }
            return 0
        }
        guard let output = arguments.value("--output") else {
            throw UsageError(message: "simulate needs -o PATH (or --list)")
        }
        var seed = Simulator.defaultSeed
        if let text = arguments.value("--seed") {
            guard let parsed = UInt64(text) else { throw UsageError(message: "--seed takes a whole number ≥ 0, not '\(text)'") }
            seed = parsed
        }
        let records = try arguments.int("--records", range: 1...50_000_000)
        let all = arguments.flag("--all")
        // (Not NSString.deletingLastPathComponent: it traps on a one-letter path such as "d".)
        if all { try FileProblem.checkFolder(output) } else { try FileProblem.checkWritableFile(output) }
        if !arguments.flag("--force") {
            // Never replace evidence: only files this simulator wrote may be overwritten.
            let targets = all ? Scenario.allCases.map { (output as NSString).appendingPathComponent($0.rawValue + ".db") } : [output]
            for target in targets where FileManager.default.fileExists(atPath: target) && !Simulator.isSimulatedDump(target) {
                throw UsageError(message: "refusing to replace \(target): it is not a dump written by simulate (evidence is never overwritten; pass --force if you mean it)")
            }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        var summaries: [SimulationSummary] = []
        if all {
            guard arguments.value("--scenario") == nil, records == nil else {
                throw UsageError(message: "--all writes the default samples; it takes no --scenario or --records")
            }
            summaries = try Simulator.writeAll(to: output, seed: seed)
        } else if let name = arguments.value("--scenario") {
            guard let scenario = Scenario(rawValue: name) else {
                throw UsageError(message: "unknown scenario '\(name)'; run 'simulate --list'")
            }
            summaries = [try Simulator.write(scenario: scenario, to: output, seed: seed, records: records)]
        } else if let records {
            summaries = [try Simulator.writeLarge(to: output, records: records, seed: seed)]
        } else {
            throw UsageError(message: "simulate needs --scenario NAME, --all, or --records N")
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        if json {
            let value: JSONValue = summaries.count == 1 && !arguments.flag("--all") ? summaries[0].json : .array(summaries.map(\.json))
            CommandSupport.printJSON(value)
        } else {
            for summary in summaries { CommandSupport.stdout.write(summary.text) }
            CommandSupport.stdout.line(String(format: "Written in %.2f s.", seconds))
        }
        return 0
    }
}
