import BGeoReader
import Foundation

/// `fleet`'s check of its output files against its inputs, in `EvidenceSet` terms (kept until
/// fleet's ledger writes through `OutputFile` like every other output).
public enum EvidenceOutputGuard {
    public static func check(output: String, evidence: [String]) throws(FileProblem) {
        guard output != "-" else { return }
        if let file = EvidenceSet(inputs: evidence).evidenceFile(at: output) {
            throw FileProblem(path: output, reason: "it is (or links to) the evidence file \(file), which is only ever read; choose another output")
        }
    }

    /// The absolute path with symbolic links resolved (see `EvidenceSet.resolve`).
    public static func canonical(_ path: String) -> String { EvidenceSet.resolve(path) }
}
