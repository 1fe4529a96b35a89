#!/usr/bin/env python3
"""Analyse a fleet of bgeo dumps with Spark: one `bgeo-forensics fleet` per partition.

    python3 fleet_job.py --list dumps.txt --out fleet.parquet --master 'local[2]'
    spark-submit --master spark://head:7077 fleet_job.py --glob '/mnt/cases/**/*.db' \
        --out /mnt/cases/fleet.parquet --partitions 200

The driver reads the list of dump paths (or expands the glob), Spark spreads them over the
executors, and each partition is piped through `bgeo-forensics fleet --paths-from - --null -o -`
on its executor: the dumps must be on a filesystem every executor mounts at the same path, and
the tool on every executor's PATH (or named by --binary). The rows are read with an explicit
schema (every key of a fleet row), written as Parquet partitioned by worstSeverity, and the
README's stranded-devices query is run on that Parquet in Spark SQL and printed.

Paths are carried as bytes from the list to the tool, NUL-separated: a name holding a newline or
bytes that are not UTF-8 reaches its dump (RDD.pipe would send each path as a line of UTF-8 text,
so it is not used). A row's `pathBytes` holds the exact bytes, base64.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql.types import (ArrayType, BooleanType, DoubleType, LongType, StringType, StructField,
                               StructType)


def _struct(*fields):
    return StructType([StructField(name, kind, True) for name, kind in fields])


S, L, D, B = StringType(), LongType(), DoubleType(), BooleanType()

# Every key of a fleet row, in the tool's order (FleetRow.keys; the README's fleet section says
# what each holds). Times stay the tool's ISO-8601 strings (`to_timestamp` turns them into
# timestamps); counts are longs, hours and metres doubles.
FLEET_ROW_SCHEMA = _struct(
    ("path", S),
    ("pathBytes", S),
    ("status", S),
    ("error", S),
    ("exitCode", L),
    ("size", L),
    ("sha256", S),
    ("walSha256", S),
    ("inputs", ArrayType(_struct(("path", S), ("bytes", L), ("sha256", S)))),
    ("format", S),
    ("layout", S),
    ("schema", L),
    ("legacy", B),
    ("device", _struct(("platform", S), ("os", S), ("model", S), ("sdk", S))),
    ("span", _struct(("first", S), ("last", S), ("hours", D))),
    ("queue", _struct(("records", L), ("locations", L), ("geofences", L), ("unreadable", L), ("oldestPending", S),
                      ("oldestPendingAgeHours", D), ("newestPending", S), ("headUuid", S))),
    ("log", _struct(("rows", L), ("errors", L), ("warnings", L), ("pendingUpload", L), ("first", S), ("last", S))),
    ("uploads", _struct(("attempts", L), ("lastAttemptAt", S), ("lastStatus", L), ("lastSuccessAt", S),
                        ("httpFailures", L), ("nextAttemptAt", S))),
    ("findings", ArrayType(_struct(("code", S), ("severity", S), ("count", L), ("first", S), ("last", S),
                                   ("rules", ArrayType(S))))),
    ("findingCodes", ArrayType(S)),
    ("worstSeverity", S),
    ("odometer", _struct(("recorded", D), ("replayed", D), ("difference", D), ("differencePercent", D), ("state", D))),
    ("warnings", L),
    ("config", _struct(("source", S), ("urlHost", S), ("autoSync", B), ("batchSync", B), ("filterPolicy", S),
                       ("disableLocationFilter", B), ("tokenRefresh", B))),
    ("tool", S),
)

# The README's stranded-devices query (fleet section), in Spark SQL: `array_contains` for
# DuckDB's `list_contains`, the table for `read_json_auto`.
STRANDED_QUERY = """
SELECT path, device.platform, device.model, queue.records AS pending,
       queue.oldestPending, queue.oldestPendingAgeHours AS age_hours, uploads.lastSuccessAt
FROM dumps
WHERE status = 'ok'
  AND array_contains(findingCodes, 'queue.stranded')
  AND queue.oldestPendingAgeHours > 24
ORDER BY age_hours DESC
"""


def read_paths(list_file, null_separated, pattern):
    """The dump paths as bytes: the list's entries (empty ones skipped), or the glob's matches."""
    if pattern is not None:
        # Bytes in, bytes out: a match whose name is not UTF-8 is kept as it is.
        return sorted(glob.glob(os.fsencode(pattern), recursive=True))
    with (sys.stdin.buffer if list_file == "-" else open(list_file, "rb")) as source:
        data = source.read()
    return [entry for entry in data.split(b"\0" if null_separated else b"\n") if entry]


def fleet_partition(binary, jobs):
    """The function each partition runs: its paths through one `fleet` process, its rows back."""

    def run(paths):
        paths = list(paths)
        if not paths:
            return
        command = [binary, "fleet", "--paths-from", "-", "--null", "-o", "-", "--jobs", str(jobs)]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        stderr = []

        def feed():
            # Written by a thread while the rows are read: a long list would otherwise fill the
            # pipe while the tool, its pipe to us full too, waits for us to read.
            try:
                process.stdin.write(b"".join(path + b"\0" for path in paths))
                process.stdin.close()
            except BrokenPipeError:
                pass

        def drain():
            for line in process.stderr:
                stderr.append(line)
                del stderr[:-20]

        threads = [threading.Thread(target=feed, daemon=True), threading.Thread(target=drain, daemon=True)]
        for thread in threads:
            thread.start()
        try:
            for line in process.stdout:
                yield line.decode("utf-8").rstrip("\n")
            code = process.wait()
            for thread in threads:
                thread.join()
            if code != 0:
                said = b"".join(stderr).decode("utf-8", "replace").strip()
                # A failed task is retried by Spark; the rows of dumps that failed are rows (status
                # `failed`), so only the tool itself failing gets here.
                raise RuntimeError(f"{binary} fleet exited with code {code}: {said}")
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--list", metavar="FILE", help="the dump paths, one per line (- for standard input)")
    source.add_argument("--glob", metavar="PATTERN", help="the dump paths matching PATTERN on a shared filesystem (** for any depth)")
    parser.add_argument("--null", action="store_true", help="--list's paths are NUL-separated (find -print0): any file name works")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write the Parquet (partitioned by worstSeverity)")
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it exists (default: refuse)")
    parser.add_argument("--binary", default="bgeo-forensics", metavar="PATH",
                        help="the tool on each executor (default: bgeo-forensics on the executor's PATH)")
    parser.add_argument("--partitions", type=int, metavar="N",
                        help="partitions, each one fleet process (default: 4 per core Spark has, at most one per dump)")
    parser.add_argument("--jobs-per-task", type=int, default=1, metavar="N",
                        help="fleet --jobs in each task (default 1: Spark runs one task per core)")
    parser.add_argument("--master", help="Spark master, e.g. local[2] (default: spark-submit's, or local[*])")
    parser.add_argument("--result-json", metavar="FILE", help="also write the stranded-devices rows to FILE as JSON")
    args = parser.parse_args(argv)

    paths = read_paths(args.list, args.null, args.glob)
    builder = SparkSession.builder.appName("bgeo-forensics fleet")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        started = time.monotonic()
        partitions = args.partitions or max(1, min(len(paths), 4 * spark.sparkContext.defaultParallelism))
        rows = (spark.sparkContext.parallelize(paths, partitions)
                .mapPartitions(fleet_partition(args.binary, args.jobs_per_task)))
        # FAILFAST: a line that is not a row with these types stops the job instead of becoming nulls.
        dumps = spark.read.schema(FLEET_ROW_SCHEMA).option("mode", "FAILFAST").json(rows)
        (dumps.write.mode("overwrite" if args.overwrite else "errorifexists")
         .partitionBy("worstSeverity").parquet(args.out))
        seconds = time.monotonic() - started

        # Queried from the Parquet just written: the analyses run once, and the query reads
        # what a later job would.
        written = spark.read.parquet(args.out)
        written.createOrReplaceTempView("dumps")
        counts = {row["status"]: row["n"] for row in
                  spark.sql("SELECT status, count(*) AS n FROM dumps GROUP BY status").collect()}
        print(f"fleet_job: {len(paths)} paths in {partitions} partitions: "
              + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
              + f"; analysed and written in {seconds:.1f} s; Parquet in {args.out}")
        stranded = spark.sql(STRANDED_QUERY)
        print("Devices with a stranded queue older than 24 h:")
        stranded.show(truncate=False)
        if args.result_json:
            with open(args.result_json, "w") as out:
                json.dump([row.asDict(recursive=True) for row in stranded.collect()], out, indent=1)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
