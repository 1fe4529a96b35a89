#!/usr/bin/env python3
"""The Spark job against the real tool, judged by DuckDB: on a folder of simulated dumps (every
scenario, one stranded for three days, a text file, a name holding a newline and a byte that is
not UTF-8, a path that does not exist), `fleet_job.py` in Spark local[2] must write the same rows
as a local `fleet` run — every field, read back from its Parquet by DuckDB — partitioned by
worstSeverity, and its stranded-devices query must list exactly the dump that DuckDB, running the
README's own query on the local rows, lists (the one stranded for three days).

    python3 integrations/spark/test_fleet_job.py --binary .build/debug/bgeo-forensics

Needs pyspark, a Java runtime and duckdb (`.ci/run` installs them). Exit code 0 when every check
passed; the last line counts them.
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ODD_NAME = b"odd\nname-\xff.db"


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
            print(f"ok: {what}")
        else:
            self.failed += 1
            print(f"FAIL: {what}" + (f"\n  {detail}" if detail else ""))


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"{command[:3]} exited with {result.returncode}:\n{result.stderr.decode(errors='replace')}")
    return result


def make_dumps(binary, folder):
    """Every scenario, a dump stranded for three days, two inputs that are not dumps, an odd name."""
    dumps = os.path.join(folder, "dumps")
    run([binary, "simulate", "--all", "-o", dumps + "/"])
    run([binary, "simulate", "--scenario", "stranded-refresh", "--records", "1500", "-o", os.path.join(dumps, "stranded-3-days.db")])
    with open(os.path.join(dumps, "notes.txt"), "w") as notes:
        notes.write("just some notes\n")
    # A dump of its own (a copy would be skipped by the local run as identical to its original).
    plain = os.path.join(dumps, "odd.db")
    run([binary, "simulate", "--scenario", "healthy-day", "--seed", "7", "-o", plain])
    os.rename(plain, os.path.join(os.fsencode(dumps), ODD_NAME))
    names = sorted(name for name in os.listdir(os.fsencode(dumps)) if not name.endswith((b"-wal", b"-shm")))
    return [os.path.join(os.fsencode(dumps), name) for name in names] + [os.fsencode(os.path.join(dumps, "missing.db"))]


def readme_query():
    """The README's DuckDB stranded-devices query (after its marker)."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
        text = readme.read()
    rest = text[text.index("<!-- fleet-duckdb-query -->"):]
    start = rest.index("```sql\n") + len("```sql\n")
    return rest[start:rest.index("```", start)]


def rows_of(relation):
    names = relation.columns
    return [dict(zip(names, values)) for values in relation.fetchall()]


def differences(local, spark, where=""):
    """Where two values differ: nested objects key by key (both must have the same keys), lists
    item by item, numbers by value (a whole double may be written without its fraction)."""
    if isinstance(local, dict) and isinstance(spark, dict):
        if set(local) != set(spark):
            return [f"{where}: keys {sorted(local)} != {sorted(spark)}"]
        return [d for key in local for d in differences(local[key], spark[key], f"{where}.{key}")]
    if isinstance(local, list) and isinstance(spark, list):
        if len(local) != len(spark):
            return [f"{where}: {len(local)} items != {len(spark)}"]
        return [d for i, (a, b) in enumerate(zip(local, spark)) for d in differences(a, b, f"{where}[{i}]")]
    if type(local) is bool or type(spark) is bool:
        return [] if local is spark else [f"{where}: {local!r} != {spark!r}"]
    return [] if local == spark else [f"{where}: {local!r} != {spark!r}"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "bgeo-forensics"))
    binary = os.path.abspath(parser.parse_args().binary)
    checks = Checks()
    folder = tempfile.mkdtemp(prefix="bgeo-spark-")
    try:
        paths = make_dumps(binary, folder)
        listing = os.path.join(folder, "dumps.list")
        with open(listing, "wb") as out:
            out.write(b"".join(path + b"\0" for path in paths))

        # The job, as a user runs it; its Python workers use this Python.
        parquet = os.path.join(folder, "fleet.parquet")
        result_json = os.path.join(folder, "stranded.json")
        started = time.monotonic()
        job = subprocess.run([sys.executable, os.path.join(HERE, "fleet_job.py"), "--list", listing, "--null", "--out", parquet,
                              "--binary", binary, "--master", "local[2]", "--partitions", "4", "--result-json", result_json],
                             capture_output=True, text=True, env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
        seconds = time.monotonic() - started
        checks.check(job.returncode == 0, f"fleet_job.py ran in Spark local[2] ({seconds:.1f} s)", job.stderr[-3000:])
        if job.returncode != 0:
            return checks

        # The same paths through the tool alone, into a file (its resumable mode).
        local_file = os.path.join(folder, "dumps.ndjson")
        run([binary, "fleet", "--paths-from", listing, "--null", "-o", local_file, "--jobs", "2"])
        with open(local_file, encoding="utf-8") as rows:
            local = {row["pathBytes"]: row for row in map(json.loads, rows)}
        checks.check(len(local) == len(paths), f"the local run has one row per path ({len(local)} of {len(paths)})")

        # The Parquet, read by DuckDB: worstSeverity comes back from the partition folders.
        written = rows_of(duckdb.sql(f"SELECT * FROM read_parquet('{parquet}/**/*.parquet', hive_partitioning = true)"))
        spark = {row["pathBytes"]: row for row in written}
        checks.check(len(written) == len(spark) == len(paths), f"the Parquet has one row per path ({len(written)})")
        checks.check(sorted(spark) == sorted(local), "the same paths (pathBytes) in both")
        keys = {key for row in local.values() for key in row}
        columns = set(written[0]) if written else set()
        checks.check(columns == keys, "the Parquet's columns are exactly the keys of a fleet row",
                     f"only in the rows: {sorted(keys - columns)}; only in the Parquet: {sorted(columns - keys)}")
        mismatches = [d for key in sorted(local) if key in spark for d in differences(local[key], spark[key], local[key]["path"])]
        checks.check(not mismatches, "every field of every row equals the local run's", "\n  ".join(mismatches[:20]))
        partitions = sorted(name for name in os.listdir(parquet) if name.startswith("worstSeverity="))
        expected = sorted({f"worstSeverity={row['worstSeverity'] or '__HIVE_DEFAULT_PARTITION__'}" for row in local.values()})
        checks.check(partitions == expected, f"partitioned by worstSeverity: {partitions}")
        odd = spark.get(base64.b64encode(os.path.join(os.fsencode(folder), b"dumps", ODD_NAME)).decode())
        checks.check(odd is not None and odd["status"] == "ok", "the dump named with a newline and byte 0xFF has its ok row")

        # The stranded devices: the job's Spark SQL against the README's DuckDB query on the local rows.
        with open(result_json, encoding="utf-8") as result:
            found = [row["path"] for row in json.load(result)]
        judged = [row[0] for row in duckdb.sql(readme_query().replace("'dumps.ndjson'", f"'{local_file}'")).fetchall()]
        three_days = os.path.join(folder, "dumps", "stranded-3-days.db")
        checks.check(judged == [three_days], f"DuckDB's README query lists the dump stranded for three days: {judged}")
        checks.check(found == judged, f"the Spark SQL query lists the same: {found}")
        checks.check(three_days in job.stdout and "Devices with a stranded queue older than 24 h:" in job.stdout,
                     "the job printed the result", job.stdout[-2000:])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return checks


if __name__ == "__main__":
    checks = main()
    print(f"{checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)
