/// Writes realistic simulated dumps (filled in by the simulator work).
public enum Simulator {
    /// A large healthy dump with `records` queue rows and as many log rows, deterministic for a seed.
    public static func writeLarge(to path: String, records: Int, seed: UInt64) throws {
        let writer = try DumpWriter(path: path, layout: .current)
        try writer.begin()
        for i in 0..<records {
            let t = 1_785_000_000.0 + Double(i) * 5
            let ts = Timestamp.format(t)
            let uuid = "00000000-0000-4000-8000-\(String(i, radix: 16))"
            let record: JSONValue = ["uuid": .string(uuid), "timestamp": .string(ts),
                                     "coords": ["latitude": .double(52.2 + Double(i) * 1e-5), "longitude": 21.0, "accuracy": 8.0]]
            try writer.insertRecord(record)
        }
        try writer.close()
    }
}
