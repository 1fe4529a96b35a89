import BGeoForensics
import BGeoSimulation
import Foundation
import Testing

/// `bgeo-forensics replay` as a user runs it, on real SQLite dumps.
@Suite struct ReplayTests {
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    static let t0 = 1_785_000_000.0

    /// A 20-fix walk north (100 m / 10 s, recorded odometer 0 → 1900) with one planted teleport
    /// (`tp-1`, 30 km away), one 300 m-accuracy fix (`bad-acc`), a location log line for `w-0`
    /// carrying raw_*, and one geofence record. `config` nil: no state.config.
    static func writeDump(_ path: String, config: JSONValue? = ["locationFilterPolicy": "Conservative",
                                                                   "authorization": ["accessToken": "tok-SECRET-123"]]) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        if let config { try w.setState("config", config) }
        func record(_ uuid: String, _ s: Double, _ lat: Double, accuracy: Double, odometer: Double?) -> JSONValue {
            var o: JSONObject = ["uuid": .string(uuid), "timestamp": .string(Timestamp.format(t0 + s))]
            if let odometer { o["odometer"] = .double(odometer) }
            o["coords"] = ["latitude": .double(lat), "longitude": 21.0, "accuracy": .double(accuracy)]
            return .object(o)
        }
        for i in 0..<20 {
            try w.insertRecord(record("w-\(i)", Double(10 * i), 52 + Double(i) * 100 / metresPerDegree, accuracy: 8,
                                      odometer: Double(100 * i)))
        }
        try w.insertRecord(record("tp-1", 65, 52.3, accuracy: 8, odometer: nil))
        try w.insertRecord(record("bad-acc", 125, 52.01, accuracy: 300, odometer: nil))
        try w.insertRecord(["uuid": "gf-1", "timestamp": .string(Timestamp.format(t0 + 30)),
                            "coords": ["latitude": 52.0, "longitude": 21.0], "geofence": ["identifier": "depot", "action": "EXIT"]])
        try w.insertLog(ts: Timestamp.format(t0), level: 4, event: "location", data: [
            "uuid": "w-0", "timestamp": .string(Timestamp.format(t0)), "latitude": 52.0, "longitude": 21.0, "accuracy": 8.0,
            "raw_latitude": 52.0, "raw_longitude": 21.00002, "odometer": 0.0,
        ])
        try w.close()
    }

    static func sha256(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var hasher = SHA256Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }

    @Test func humanSummaryNamesSourceCountsOdometerAndDiagnosis() throws {
        let dir = TestDirectory("replay-text")
        let path = dir.file("bgeo.db")
        try Self.writeDump(path)
        let before = try Self.sha256(path)
        let r = try ToolRunner.run(["replay", path])
        #expect(r.exitCode == 0, "\(r.stderr)")
        #expect(r.stdout.contains("from state.config"))
        #expect(r.stdout.contains("accepted") && r.stdout.contains("teleport"))
        #expect(r.stdout.contains("Top contributors"))
        #expect(r.stdout.contains("Diagnosis"))
        #expect(r.stdout.contains("tp-1"))  // named as the rejected teleport
        #expect(r.stdout.contains("1 geofence event"))
        #expect(!r.stdout.contains("tok-SECRET-123"))
        #expect(try Self.sha256(path) == before)  // evidence untouched
        let listing = try ToolRunner.run(["replay", path, "--fixes", "--top", "2"])
        #expect(listing.exitCode == 0)
        let tpRow = listing.stdout.split(separator: "\n").first { $0.contains("tp-1") && $0.contains("queue") }
        #expect(tpRow?.contains("rejected (teleport)") == true)
        let topJSON = try JSONParser.parse(try ToolRunner.run(["replay", path, "--json", "--top", "2"]).stdout)
        #expect(topJSON["topContributors"]?.arrayValue?.count == 2)
        #expect(topJSON["decisions"] == nil)
    }

    @Test func jsonIsByteIdenticalAcrossRunsAndCountsArePlanted() throws {
        let dir = TestDirectory("replay-json")
        let path = dir.file("bgeo.db")
        try Self.writeDump(path)
        let a = try ToolRunner.run(["replay", path, "--json", "--fixes"])
        let b = try ToolRunner.run(["replay", path, "--json", "--fixes"])
        #expect(a.exitCode == 0, "\(a.stderr)")
        #expect(a.stdout == b.stdout)
        let json = try JSONParser.parse(a.stdout)
        #expect(json["fixes"] == .int(22))
        #expect(json["accepted"] == .int(20))
        #expect(json["rejected"]?["teleport"] == .int(1))
        #expect(json["rejected"]?["accuracy"] == .int(1))
        #expect(json["configSource"] == .string("state.config"))
        #expect(json["config"]?["locationFilterPolicy"] == .string("Conservative"))
        #expect(json["odometer"]?["recorded"] == .double(1900))
        #expect(json["trace"]?["duplicates"] == .int(1))
        let decisions = try #require(json["decisions"]?.arrayValue)
        #expect(decisions.count == 22)
        // raw_* won for w-0: the first fix is output where the raw line put it.
        #expect(decisions.first?["uuid"] == .string("w-0"))
        #expect(decisions.first?["longitude"] == .double(21.00002))
        let teleport = try #require(decisions.first { $0["uuid"] == .string("tp-1") })
        #expect(teleport["decision"] == .string("rejected") && teleport["reason"] == .string("teleport"))
        #expect(!a.stdout.contains("tok-SECRET-123"))
    }

    @Test func compareListsTheFixesWhoseDecisionChanges() throws {
        let dir = TestDirectory("replay-compare")
        let path = dir.file("bgeo.db")
        try Self.writeDump(path)
        let r = try ToolRunner.run(["replay", path, "--compare", "--set", "locationfilterpolicy=PassThrough", "--json"])
        #expect(r.exitCode == 0, "\(r.stderr)")
        let json = try JSONParser.parse(r.stdout)
        let differences = try #require(json["compare"]?["differences"]?.arrayValue)
        #expect(differences.map { $0["uuid"] } == [.string("tp-1")])
        #expect(json["compare"]?["whatIf"]?["config"]?["locationFilterPolicy"] == .string("PassThrough"))
        #expect(json["compare"]?["recorded"]?["config"]?["locationFilterPolicy"] == .string("Conservative"))
        let text = try ToolRunner.run(["replay", path, "--compare", "--set", "locationFilterMaxSpeed=10000"])
        #expect(text.exitCode == 0)
        #expect(text.stdout.contains("what-if") && text.stdout.contains("1 fix change decision"))
    }

    @Test func configFileAndDefaultsAndUsageErrors() throws {
        let dir = TestDirectory("replay-config")
        let path = dir.file("bare.db")
        try Self.writeDump(path, config: nil)
        let r = try ToolRunner.run(["replay", path])
        #expect(r.exitCode == 0)
        #expect(r.stdout.contains("engine defaults"))
        let file = dir.file("whatif.json")
        try Data(#"{"locationFilterMaxAccuracy": 500, "locationFilterPolicy": "passthrough"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let withFile = try JSONParser.parse(try ToolRunner.run(["replay", path, "--config", file, "--json"]).stdout)
        #expect(withFile["rejected"]?["total"] == .int(0))
        #expect(withFile["configSource"]?.stringValue?.contains("--config whatif.json") == true)
        for bad in [["--set", "locationFilterMaxSpeed=fast"], ["--set", "url=x"], ["--compare"], ["--top", "-1"]] {
            let e = try ToolRunner.run(["replay", path] + bad)
            #expect(e.exitCode == 2, "\(bad)")
            #expect(!e.stderr.isEmpty)
        }
        let notADump = dir.file("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notADump))
        #expect(try ToolRunner.run(["replay", notADump]).exitCode == 2)
        let help = try ToolRunner.run(["replay", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--compare") && help.stdout.contains("--set"))
    }

    /// An independent reference of replay-semantics.md in Python (its own haversine, the Adjust
    /// point by bearing/destination rather than slerp, its own trace assembly) must reach the same
    /// decision for every fix and the same odometer, on a seeded random walk with teleports,
    /// poor and unknown accuracies, repeated timestamps and gaps over 300 s.
    @Test(arguments: [["Conservative", "100", "60", "DEFAULT", "0"], ["Adjust", "50", "30", "AGGRESSIVE", "0"],
                      ["PassThrough", "100", "60", "DEFAULT", "10"], ["Adjust", "200", "10", "CONSERVATIVE", "15"]])
    func matchesAnIndependentPythonReference(_ config: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            Issue.record("python3 is needed for the independent reference")
            return
        }
        let dir = TestDirectory("replay-reference")
        let path = dir.file("walk.db")
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func random() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 1_000_000) / 1_000_000
        }
        var t = 0.0, lat = 48.85, lon = 2.35
        for i in 0..<600 {
            let r = random()
            t += r < 0.01 ? 0 : (r < 0.02 ? 400 : [1, 2, 5, 10, 30][Int(random() * 5)])
            lat += (random() - 0.5) * 6e-4
            lon += (random() - 0.5) * 6e-4
            var fixLat = lat, fixLon = lon
            if random() < 0.03 { fixLat += (random() - 0.5) * 0.1; fixLon += (random() - 0.5) * 0.1 }
            let accuracy = random() < 0.3 ? [3, 8, 25, 60, 150, -1][Int(random() * 6)] : 2 + random() * 18
            let uuid = "f-\(i)", ts = Timestamp.format(Self.t0 + t)
            if random() < 0.6 {
                try w.insertRecord(["uuid": .string(uuid), "timestamp": .string(ts),
                                    "coords": ["latitude": .double(fixLat), "longitude": .double(fixLon), "accuracy": .double(accuracy)]])
            }
            if random() < 0.5 {
                var data: JSONObject = ["uuid": .string(uuid), "timestamp": .string(ts), "latitude": .double(fixLat + 1e-5),
                                        "longitude": .double(fixLon), "accuracy": .double(accuracy)]
                if random() < 0.7 { data["raw_latitude"] = .double(fixLat); data["raw_longitude"] = .double(fixLon) }
                try w.insertLog(ts: ts, level: 4, event: "location", data: .object(data))
            }
        }
        try w.close()
        let script = dir.file("reference.py")
        try Data(Self.referenceScript.utf8).write(to: URL(fileURLWithPath: script))
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [script, path] + config
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let referenceData = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        let reference = try JSONParser.parse(String(decoding: referenceData, as: UTF8.self))

        let keys = ["locationFilterPolicy", "locationFilterMaxAccuracy", "locationFilterMaxSpeed", "kalmanProfile",
                    "odometerAccuracyThreshold"]
        let sets = zip(keys, config).flatMap { ["--set", "\($0)=\($1)"] }
        let run = try ToolRunner.run(["replay", path, "--json", "--fixes"] + sets)
        #expect(run.exitCode == 0, "\(run.stderr)")
        let ours = try JSONParser.parse(run.stdout)
        let ourDecisions = (ours["decisions"]?.arrayValue ?? []).map { d -> [JSONValue] in
            [d["uuid"] ?? .null, d["decision"] ?? .null, d["reason"] ?? .null]
        }
        let theirDecisions = (reference["decisions"]?.arrayValue ?? []).map { $0.arrayValue ?? [] }
        #expect(ourDecisions.count > 300)
        #expect(ourDecisions == theirDecisions)
        let odometer = try #require(ours["odometer"]?["replayed"]?.doubleValue)
        let theirs = try #require(reference["odometer"]?.doubleValue)
        #expect(abs(odometer - theirs) < 0.01, "ours \(odometer) reference \(theirs)")
    }

    static let referenceScript = #"""
# Independent reference of replay-semantics.md (queue + location lines, raw_* preferred), for cross-checking.
import sqlite3, json, math, sys, datetime
R=6371008.8
def hv(a,b,c,d):
    p1,p2=math.radians(a),math.radians(c); h=math.sin((p2-p1)/2)**2+math.cos(p1)*math.cos(p2)*math.sin(math.radians(d-b)/2)**2
    return 2*R*math.asin(min(1,math.sqrt(h)))
def toward(a,b,c,d,dist):
    # via bearing/destination (a different construction than the Swift slerp)
    p1,l1,p2,l2=map(math.radians,(a,b,c,d))
    y=math.sin(l2-l1)*math.cos(p2); x=math.cos(p1)*math.sin(p2)-math.sin(p1)*math.cos(p2)*math.cos(l2-l1)
    th=math.atan2(y,x); dl=dist/R
    p3=math.asin(math.sin(p1)*math.cos(dl)+math.cos(p1)*math.sin(dl)*math.cos(th))
    l3=l1+math.atan2(math.sin(th)*math.sin(dl)*math.cos(p1),math.cos(dl)-math.sin(p1)*math.sin(p3))
    return math.degrees(p3),math.degrees(l3)
def t(s): return datetime.datetime.fromisoformat(s.replace('Z','+00:00')).timestamp()
db=sqlite3.connect(sys.argv[1]); policy=sys.argv[2]; maxacc=float(sys.argv[3]); maxv=float(sys.argv[4]); prof=sys.argv[5]; odothr=float(sys.argv[6])
fx={}
order=[]
for rid,u,ts,kind,js in db.execute("select id,uuid,timestamp,kind,json from location_events order by id"):
    if kind!='location': continue
    r=json.loads(js); c=r['coords']; acc=c.get('accuracy'); acc=None if acc is None or acc<0 else acc
    fx[u]=dict(t=t(ts),lat=c['latitude'],lon=c['longitude'],acc=acc,rid=rid,lid=None,u=u); order.append(u)
for lid,data in db.execute("select id,data from log_entries where event='location' order by id"):
    d=json.loads(data); u=d['uuid']
    if u in fx:
        fx[u]['lid']=fx[u]['lid'] or lid
        if 'raw_latitude' in d: fx[u]['lat']=d['raw_latitude']; fx[u]['lon']=d['raw_longitude']
    else:
        a=d.get('accuracy'); fx[u]=dict(t=t(d['timestamp']),lat=d.get('raw_latitude',d['latitude']),lon=d.get('raw_longitude',d['longitude']),acc=None if a is None or a<0 else a,rid=None,lid=lid,u=u)
import functools
def cmp(a,b):
    if a['t']!=b['t']: return -1 if a['t']<b['t'] else 1
    if a['rid'] is not None and b['rid'] is not None and a['rid']!=b['rid']: return -1 if a['rid']<b['rid'] else 1
    if a['lid'] is not None and b['lid'] is not None and a['lid']!=b['lid']: return -1 if a['lid']<b['lid'] else 1
    pa=a['rid'] if a['rid'] is not None else a['lid']; pb=b['rid'] if b['rid'] is not None else b['lid']
    return (pa>pb)-(pa<pb)
fixes=sorted(fx.values(),key=functools.cmp_to_key(cmp))
q,r={'DEFAULT':(1,1),'AGGRESSIVE':(2,.5),'CONSERVATIVE':(.5,2)}[prof]
ref=None; K=None; odo=0; anchor=None; out=[]
for f in fixes:
    if f['acc'] is None or f['acc']>maxacc: out.append((f['u'],'rejected','accuracy',odo)); continue
    lat,lon=f['lat'],f['lon']; dec='accepted'
    if policy!='PassThrough':
        reset=ref is None or f['t']-ref[0]>300
        if not reset:
            dt=f['t']-ref[0]
            if dt<=0: out.append((f['u'],'rejected','time',odo)); continue
            v=hv(ref[1],ref[2],lat,lon)/dt
            if v>maxv:
                if policy=='Conservative': out.append((f['u'],'rejected','teleport',odo)); continue
                lat,lon=toward(ref[1],ref[2],lat,lon,maxv*dt); dec='adjusted'
        ref=(f['t'],lat,lon)
        a=max(f['acc'],1.0)
        if reset: K=[lat,lon,(a*r)**2,f['t']]
        else:
            K[2]+=(f['t']-K[3])*(3.0*q)**2; g=K[2]/(K[2]+(a*r)**2); K[0]+=g*(lat-K[0]); K[1]+=g*(lon-K[1]); K[2]=(1-g)*K[2]; K[3]=f['t']
        lat,lon=K[0],K[1]
    if not (odothr>0 and f['acc']>odothr):
        if anchor: odo+=hv(anchor[0],anchor[1],lat,lon)
        anchor=(lat,lon)
    out.append((f['u'],dec,None,odo))
print(json.dumps({"odometer":odo,"decisions":[[u,d,rs] for u,d,rs,_ in out]}))
"""#
}
