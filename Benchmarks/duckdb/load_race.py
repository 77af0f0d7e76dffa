#!/usr/bin/env python3
"""The load race against DuckDB (issue 32, item 7): `wells load` and DuckDB's CLI load the same
synthetic well list, each into a new persistent, spatially indexed store, one whole process per run,
in interleaved rounds.

    bash Benchmarks/duckdb/setup.sh                            # once: the pinned DuckDB in .build/duckdb-venv
    python3 Benchmarks/duckdb/load_race.py                     # 244,292 and 2,442,920 wells, 3 rounds
    python3 Benchmarks/duckdb/load_race.py --sizes 244292 --rounds 5 --wells .build/release/wells --json

What each tool does, timed from its start to its exit:
- `wells load FILE --db STORE --format json`, as users run it (with the place checks): pins, details,
  the identifier index and the packed R*Tree, committed.
- DuckDB's CLI (`duckdb -no-init -batch -bail STORE -f load.sql`): `LOAD spatial`, `CREATE TABLE
  wells AS SELECT *, ST_Point(lon, lat) AS geom FROM read_csv(FILE)`, `CREATE INDEX … USING RTREE
  (geom)`; the columns are those `wells load --dry-run` maps to lat and lon. The spatial extension is
  installed once, untimed, from the file that the pinned duckdb-extension-spatial wheel ships
  (`INSTALL '<path>'`, which loads without allowing unsigned extensions), into the work directory's
  own extension directory, so nothing is written to ~/.duckdb.
- With --ogr2ogr, GDAL's `ogr2ogr` into a GeoPackage with its spatial index (when on PATH).

The rounds run the tools in turn, the order reversed every other round, so that a noisy spell on a
shared machine, or the write-back of the previous tool's store (`sync` runs before each run), slows
every tool rather than one. Reported per tool: the median wall time, each round's time divided by
wells' in the same round (above 1, wells was faster) and their median, the store's size on disk (the
store's files, WAL included), and the peak resident memory (the process's ru_maxrss from wait4).
Rows are counted after the last round, untimed, as a check that every tool loaded every well.

Standard library only; DuckDB is found in --venv (made by setup.sh) or given by --duckdb and
--spatial-extension. Where it is missing, DuckDB is skipped with a message and wells still runs.
Exit codes: 64 for bad arguments, 65 when a tool fails on the file, 66 for a missing file, 74 for I/O.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DUCKDB_VERSION = "1.5.5"
SEED = 1                        # README's synthetic list: wells generate --count 244292 --seed 1
MAXIMUM_GENERATED = 9_999_998   # the largest list wells generate writes
EX_USAGE, EX_DATAERR, EX_NOINPUT, EX_IOERR = 64, 65, 66, 74


class BenchError(Exception):
    """A failure that ends the benchmark with `message` on standard error and exit `code`."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


# MARK: DuckDB's SQL

def _refuse_control_characters(text, what):
    # The CLI reads its script line by line and takes a line starting with '.' as a command of its
    # own: no name or path may bring a line break (or any control character) into the script.
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise BenchError(f"{what} {text!r} contains a control character: rename it to load it with DuckDB", EX_USAGE)


def sql_string(text, what="path"):
    """`text` as a SQL string literal: quotes doubled, control characters refused."""
    _refuse_control_characters(text, what)
    return "'" + text.replace("'", "''") + "'"


def sql_identifier(name, what="column"):
    """`name` as a quoted SQL identifier: double quotes doubled, control characters refused."""
    _refuse_control_characters(name, what)
    return '"' + name.replace('"', '""') + '"'


def duckdb_install_script(extension_file, extension_directory):
    """Installs the spatial extension from its file into `extension_directory` (run once, untimed)."""
    return (f"SET extension_directory = {sql_string(extension_directory)};\n"
            f"INSTALL {sql_string(extension_file)};\n")


def duckdb_load_script(csv, lat, lon, extension_directory):
    """The timed DuckDB load: the CSV read by `read_csv` into the table `wells` with every column and a
    point per row, then an RTREE index on the points."""
    return (f"SET extension_directory = {sql_string(extension_directory)};\n"
            "LOAD spatial;\n"
            f"CREATE TABLE wells AS SELECT *, ST_Point({sql_identifier(lon)}, {sql_identifier(lat)}) AS geom "
            f"FROM read_csv({sql_string(csv)});\n"
            "CREATE INDEX wells_geom ON wells USING RTREE (geom);\n")


def duckdb_count_script(extension_directory):
    """Counts the loaded rows with a point (run after the last round, untimed)."""
    return (f"SET extension_directory = {sql_string(extension_directory)};\n"
            "LOAD spatial;\n"
            "SELECT count(geom) FROM wells;\n")


@dataclass
class DuckDB:
    cli: str
    extension: str
    version: str


def find_duckdb(venv, cli=None, extension=None):
    """The DuckDB CLI binary and the spatial extension's file, or None and why not.

    The duckdb-cli wheel's `bin/duckdb` is a Python wrapper that starts the real binary in
    `site-packages/duckdb_cli/`: the race runs that binary, so that neither Python's start-up nor a
    second process is timed."""
    packages = sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages")))
    if cli is None:
        found = [p for p in (os.path.join(s, "duckdb_cli", "duckdb") for s in packages) if os.access(p, os.X_OK)]
        cli = found[0] if found else None
    if extension is None:
        found = sorted(p for s in packages
                       for p in glob.glob(os.path.join(s, "duckdb_extension_spatial", "extensions", "v*", "spatial.duckdb_extension")))
        extension = found[-1] if found else None
    setup = f"bash {ROOT / 'Benchmarks/duckdb/setup.sh'} (pins duckdb, duckdb-cli and duckdb-extension-spatial=={DUCKDB_VERSION})"
    if cli is None or extension is None:
        missing = "the CLI (duckdb-cli)" if cli is None else "the spatial extension (duckdb-extension-spatial)"
        return None, f"DuckDB skipped: {missing} is not in {venv}; run {setup}, or pass --venv, --duckdb and --spatial-extension"
    try:
        out = subprocess.run([cli, "--version"], capture_output=True, text=True, timeout=60).stdout.split()
    except OSError as error:
        return None, f"DuckDB skipped: {cli} does not run ({error.strerror}); run {setup}"
    version = out[0].lstrip("v") if out else "?"
    extension_version = Path(extension).parent.name.lstrip("v")
    if version != extension_version:
        return None, (f"DuckDB skipped: the CLI is {version} but the spatial extension is for {extension_version}; "
                      f"run {setup}")
    return DuckDB(cli, extension, version), None


# MARK: Running and measuring

@dataclass
class Run:
    seconds: float
    user_seconds: float
    system_seconds: float
    peak_rss_bytes: int
    store_bytes: int


@dataclass
class Tool:
    name: str
    store: str                      # file name of its store in the work directory
    command: object                 # (csv, store) -> argv
    count: object = None            # (store, last run's stdout) -> rows, or None
    runs: list = field(default_factory=list)
    rows: int = None


STORE_SUFFIXES = ("", "-wal", "-shm", "-journal", ".wal")


def remove_store(path):
    for suffix in STORE_SUFFIXES:
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass


def store_bytes(path):
    """The store's files on disk: the database and whatever WAL or journal it left."""
    return sum(os.path.getsize(path + s) for s in STORE_SUFFIXES if os.path.exists(path + s))


def measured(argv, output, name):
    """Runs `argv` as a whole process with standard output to `output`: its wall time from start to
    exit and its rusage (wait4), or a BenchError naming the tool and the end of its standard error."""
    with open(output, "wb") as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        except OSError as error:
            raise BenchError(f"{name}: cannot run {argv[0]}: {error.strerror}", EX_USAGE)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace").strip()[-1500:]
            raise BenchError(f"{name} failed (exit {process.returncode}): {' '.join(argv)}\n{tail}", EX_DATAERR)
    return seconds, usage


def race(csv, tools, rounds, work, log):
    """Every tool once per round, the order reversed every other round; fresh stores each run."""
    for round_index in range(rounds):
        order = tools if round_index % 2 == 0 else list(reversed(tools))
        for tool in order:
            store = os.path.join(work, tool.store)
            remove_store(store)
            os.sync()
            output = os.path.join(work, tool.store + ".out")
            seconds, usage = measured(tool.command(csv, store), output, tool.name)
            tool.runs.append(Run(seconds, usage.ru_utime, usage.ru_stime, usage.ru_maxrss * 1024, store_bytes(store)))
            log(f"  round {round_index + 1}/{rounds}: {tool.name} {seconds:.2f} s")
    for tool in tools:
        if tool.count is not None:
            store = os.path.join(work, tool.store)
            with open(os.path.join(work, tool.store + ".out"), encoding="utf-8", errors="replace") as out:
                tool.rows = tool.count(store, out.read())
        remove_store(os.path.join(work, tool.store))


def summary(tools):
    """Per tool: medians, and each round's time over wells' (the first tool) in the same round."""
    wells = tools[0].runs
    result = []
    for tool in tools:
        ratios = [run.seconds / w.seconds for run, w in zip(tool.runs, wells)]
        result.append({
            "name": tool.name,
            "medianSeconds": statistics.median(r.seconds for r in tool.runs),
            "medianCPUSeconds": statistics.median(r.user_seconds + r.system_seconds for r in tool.runs),
            "ratioToWells": statistics.median(ratios),
            "ratiosToWells": ratios,
            "storeBytes": tool.runs[-1].store_bytes,
            "peakRSSBytes": max(r.peak_rss_bytes for r in tool.runs),
            "rows": tool.rows,
            "runs": [vars(r) for r in tool.runs],
        })
    return result


def table(size):
    """One list's figures as a grid, as wells-bench prints its races."""
    rows = size["tools"][0]["rows"] or 0
    grid = [["tool", "median", "CPU", "rows/s", "× wells' time", "per round", "store", "peak RSS", "rows"]]
    for tool in size["tools"]:
        first = tool is size["tools"][0]
        grid.append([tool["name"], f"{tool['medianSeconds']:.2f} s", f"{tool['medianCPUSeconds']:.2f} s", f"{rows / tool['medianSeconds']:,.0f}",
                     "1" if first else f"{tool['ratioToWells']:.2f}",
                     "" if first else " ".join(f"{r:.2f}" for r in tool["ratiosToWells"]),
                     f"{tool['storeBytes'] / 1e6:.1f} MB", f"{tool['peakRSSBytes'] / 1e6:.0f} MB",
                     "?" if tool["rows"] is None else f"{tool['rows']:,}"])
    widths = [max(len(row[k]) for row in grid) for k in range(len(grid[0]))]
    lines = [f"Load of {size['label']} ({rows:,} wells, {size['bytes'] / 1e6:.1f} MB), {size['rounds']} interleaved round{'s' if size['rounds'] > 1 else ''}, medians:"]
    for index, row in enumerate(grid):
        lines.append("  ".join(cell.ljust(widths[k]) for k, cell in enumerate(row)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


FOOTNOTE = ("× wells' time: the tool's time over wells' in the same round (above 1, wells was faster), and per round; "
            "issue 32 asks for DuckDB's at least 1.2 at 244,292 wells and 0.8 at 2,442,920.")


# MARK: The command

def wells_mapping(wells, csv, work):
    """The columns `wells load --dry-run` maps to lat and lon, which DuckDB's point is made from."""
    output = os.path.join(work, "dry-run.json")
    measured([wells, "load", csv, "--dry-run", "--format", "json"], output, "wells load --dry-run")
    with open(output, encoding="utf-8") as out:
        mapping = json.load(out).get("mapping", {})
    if "lat" not in mapping or "lon" not in mapping:
        raise BenchError(f"wells found no latitude and longitude columns in {csv}: pass --lat and --lon", EX_DATAERR)
    return mapping["lat"], mapping["lon"]


def make_tools(args, wells, duckdb, extension_directory, lat, lon):
    def wells_rows(store, out):
        summary = json.loads(out)
        return summary.get("inserted", 0) + summary.get("updated", 0)

    tools = [Tool("wells load", "wells.sqlite", lambda csv, store: [wells, "load", csv, "--db", store, "--format", "json"], wells_rows)]
    if duckdb:
        work = os.path.dirname(extension_directory)
        count_sql = os.path.join(work, "count.sql")
        with open(count_sql, "w", encoding="utf-8") as f:
            f.write(duckdb_count_script(extension_directory))

        def duckdb_command(csv, store):
            script = os.path.join(work, "load.sql")
            with open(script, "w", encoding="utf-8") as f:
                f.write(duckdb_load_script(csv, lat, lon, extension_directory))
            return [duckdb.cli, "-no-init", "-batch", "-bail", store, "-f", script]

        def duckdb_rows(store, out):
            result = subprocess.run([duckdb.cli, "-no-init", "-batch", "-bail", "-readonly", "-list", "-noheader", store,
                                     "-f", count_sql], capture_output=True, text=True)
            return int(result.stdout.split()[-1]) if result.returncode == 0 and result.stdout.split() else None

        tools.append(Tool(f"DuckDB {duckdb.version} CLI: read_csv, ST_Point, RTREE", "duckdb.duckdb", duckdb_command, duckdb_rows))
    if args.ogr2ogr:
        ogr2ogr, ogrinfo = shutil.which("ogr2ogr"), shutil.which("ogrinfo")
        if ogr2ogr is None:
            print("ogr2ogr skipped: it is not on PATH (apt-get install gdal-bin)", file=sys.stderr)
        else:
            def gpkg_rows(store, out):
                if ogrinfo is None:
                    return None
                result = subprocess.run([ogrinfo, "-ro", "-so", "-al", store], capture_output=True, text=True)
                counts = [line.split(":")[1] for line in result.stdout.splitlines() if line.startswith("Feature Count:")]
                return int(counts[0]) if counts else None

            tools.append(Tool("ogr2ogr to GeoPackage (with spatial index)", "ogr.gpkg", lambda csv, store: [
                ogr2ogr, "-f", "GPKG", store, csv, "-oo", f"X_POSSIBLE_NAMES={lon}", "-oo", f"Y_POSSIBLE_NAMES={lat}",
                "-a_srs", "EPSG:4326", "-nln", "wells", "-gt", "65536"], gpkg_rows))
    return tools


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="load_race.py", description=__doc__,
        epilog="Run bash Benchmarks/duckdb/setup.sh first. Benchmarks/README.md says what it prints.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wells", metavar="PATH", help="the wells binary (default: .build/release/wells of this repository)")
    parser.add_argument("--sizes", metavar="N,N", help=f"synthetic lists to generate with wells generate --seed {SEED}, by wells, "
                                        "comma-separated (default: 244292,2442920, or none when --file is given)")
    parser.add_argument("--file", metavar="CSV", action="append", default=[],
                        help="a well list of your own to load (repeatable; then no list is generated unless --sizes is given)")
    parser.add_argument("--rounds", metavar="N", type=int, default=3,
                        help="interleaved rounds per list, one run of each tool in each (default 3)")
    parser.add_argument("--venv", metavar="DIR", default=str(ROOT / ".build" / "duckdb-venv"),
                        help="the virtual environment setup.sh made (default: .build/duckdb-venv)")
    parser.add_argument("--duckdb", metavar="PATH", help="the DuckDB CLI binary (default: the one in --venv)")
    parser.add_argument("--spatial-extension", metavar="FILE", help="spatial.duckdb_extension (default: the one in --venv)")
    parser.add_argument("--lat", metavar="COLUMN", help="the latitude column, for DuckDB (default: the one wells maps)")
    parser.add_argument("--lon", metavar="COLUMN", help="the longitude column, for DuckDB (default: the one wells maps)")
    parser.add_argument("--ogr2ogr", action="store_true", help="also run ogr2ogr into a GeoPackage")
    parser.add_argument("--work", metavar="DIR", help="where generated lists are kept and used again, with the stores in a new directory inside it, "
                                       "removed after (default: a new temporary directory, removed after)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON, every run's figures included")
    args = parser.parse_args(argv)

    def usage(message):
        raise BenchError(f"{message}\n{parser.format_usage().strip()}", EX_USAGE)

    if not 1 <= args.rounds <= 100:
        usage(f"--rounds {args.rounds}: give 1 to 100 rounds")
    if (args.lat is None) != (args.lon is None):
        usage("--lat and --lon go together: give both, or neither to use the columns wells maps")
    args.size_list = []
    if args.sizes is not None or not args.file:
        for text in (args.sizes or "244292,2442920").split(","):
            text = text.strip().replace("_", "")
            if not text.isdigit() or not 1 <= int(text) <= MAXIMUM_GENERATED:
                usage(f"--sizes: {text!r} is not a number of wells from 1 to {MAXIMUM_GENERATED:,}; "
                      "give e.g. --sizes 244292,2442920, or --file for a larger list")
            args.size_list.append(int(text))
    for path in args.file:
        if not os.path.isfile(path):
            raise BenchError(f"--file {path}: no such file", EX_NOINPUT)
    wells = args.wells or str(ROOT / ".build" / "release" / "wells")
    if not (os.path.isfile(wells) and os.access(wells, os.X_OK)):
        usage(f"no wells binary at {wells}: build it (swift build -c release --product wells) or pass --wells PATH")
    args.wells_binary = os.path.abspath(wells)
    return args


def main(argv):
    args = parse_arguments(argv)
    log = (lambda message: print(message, file=sys.stderr, flush=True))
    if "/debug/" in args.wells_binary:
        log(f"note: {args.wells_binary} is a debug build: its times are not WellKit's; use a release build for figures")
    duckdb, reason = find_duckdb(args.venv, args.duckdb, args.spatial_extension)
    if reason:
        log(reason)
    # Generated lists go in the work directory, to be used again; stores, scripts and outputs in a new
    # directory inside it, so that no file of the user's there is ever replaced or removed.
    work, scratch = args.work, None
    try:
        if work:
            os.makedirs(work, exist_ok=True)
        work = os.path.abspath(work or tempfile.mkdtemp(prefix="wells-duckdb-race-"))
        scratch = tempfile.mkdtemp(prefix="race-", dir=work)
        extension_directory = os.path.join(scratch, "duckdb-extensions")
        if duckdb:
            script = os.path.join(scratch, "install.sql")
            with open(script, "w", encoding="utf-8") as f:
                f.write(duckdb_install_script(duckdb.extension, extension_directory))
            measured([duckdb.cli, "-no-init", "-batch", "-bail", ":memory:", "-f", script],
                     os.path.join(scratch, "install.out"), "DuckDB INSTALL of the spatial extension")
        lists = [(os.path.abspath(path), path) for path in args.file]
        for count in args.size_list:
            csv = os.path.join(work, f"wells-{count}-seed{SEED}.csv")
            if not os.path.exists(csv):
                log(f"generating {count:,} wells (seed {SEED}) …")
                measured([args.wells_binary, "generate", "--count", str(count), "--seed", str(SEED), "--out", csv],
                         os.path.join(scratch, "generate.out"), "wells generate")
            lists.append((csv, f"wells generate --count {count} --seed {SEED}"))
        report = {"wells": args.wells_binary, "duckdb": duckdb.version if duckdb else None,
                  "duckdbSkipped": reason, "cores": os.cpu_count(), "sizes": []}
        for csv, label in lists:
            lat, lon = (args.lat, args.lon) if args.lat else wells_mapping(args.wells_binary, csv, scratch)
            tools = make_tools(args, args.wells_binary, duckdb, extension_directory, lat, lon)
            log(f"{label}: {', '.join(t.name for t in tools)}")
            race(csv, tools, args.rounds, scratch, log)
            report["sizes"].append({"label": label, "file": csv, "bytes": os.path.getsize(csv), "rounds": args.rounds,
                                    "latitude": lat, "longitude": lon, "tools": summary(tools)})
            if not args.json:   # each list's table as soon as it is done
                print(table(report["sizes"][-1]) + "\n", flush=True)
        print(json.dumps(report, indent=2) if args.json else FOOTNOTE)
    except OSError as error:
        raise BenchError(f"{error.filename or work}: {error.strerror}", EX_IOERR)
    finally:
        if scratch:
            shutil.rmtree(scratch if args.work else work, ignore_errors=True)

if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BenchError as error:
        print(f"load_race.py: {error}", file=sys.stderr)
        sys.exit(error.code)
    except KeyboardInterrupt:
        sys.exit(130)
