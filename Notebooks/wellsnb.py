"""Shared helpers for the WellKit notebooks: where things are, and how to call the `wells` CLI.

The notebooks are run by `bash Notebooks/run.sh`, which exports:
  WELLS_BIN    the wells executable (the benchmarks' `wells-bench` is looked up beside it)
  WELLS_WORK   a scratch folder for generated CSVs and stores (never the committed tree)
  WELLS_COUNT  rows in the synthetic well list (default 244292)
  LIMIT_QUERY  the C reference bbox timer, built from Benchmarks/Reference/bbox_query.c
  LIMIT_LOAD   the C reference loader, built from Benchmarks/Reference/limit_load_wellkit.c
  WELLS_NOTEBOOKS_MODE  `check` when run.sh executes copies (figures then go to WELLS_WORK, not figures/)
Each has a fallback, so a notebook also runs when opened by hand from this folder.
Notebook 04 also reads WELLS_SCALE_SIZES, WELLS_SCALE_ROUNDS and WELLS_SCALE_JSON (see scale_sizes()).
"""
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pandas as pd

NOTEBOOKS = Path(__file__).resolve().parent
REPO = NOTEBOOKS.parent
# Everything comes from the repository: the real well lists (Data/real) and the C references
# (Benchmarks/Reference); the synthetic lists are `wells generate`'s.
DATA = REPO / "Data" / "real"
TOOLS = REPO / "Benchmarks" / "Reference"

COUNT = int(os.environ.get("WELLS_COUNT", "244292"))
WORK = Path(os.environ.get("WELLS_WORK", NOTEBOOKS / ".venv" / "work"))
WORK.mkdir(parents=True, exist_ok=True)

SYNTHETIC_CSV = WORK / f"synthetic-{COUNT}.csv"
SYNTHETIC_DB = WORK / f"synthetic-{COUNT}.sqlite"
TN_CSV = DATA / "tn-oilgas-wells.csv"
TN_DB = WORK / "tn-oilgas-wells.sqlite"
PA_TSV = DATA / "usgs-nwis-pa-gw-sites.tsv"
PA_DB = WORK / "usgs-nwis-pa-gw-sites.sqlite"
# US counties (Census 1:20M, EPSG:4326; properties STATE, NAME, …): see Data/boundaries/README.md.
COUNTIES = REPO / "Data" / "boundaries" / "us-counties-fips.geojson"


def _find_wells() -> Path:
    if os.environ.get("WELLS_BIN"):
        return Path(os.environ["WELLS_BIN"]).resolve()
    for candidate in (REPO / ".build" / "release" / "wells", REPO / ".build" / "debug" / "wells"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError("No wells binary: set WELLS_BIN or run `swift build -c release` (run.sh does both).")


WELLS = _find_wells()


def _command(args) -> list:
    """`wells ARGS…`, or for `bench …` the benchmark tool built beside it, `wells-bench …`."""
    if args and args[0] == "bench":
        return [str(WELLS.with_name("wells-bench")), *map(str, args[1:])]
    return [str(WELLS), *map(str, args)]


def wells(*args, check=True) -> str:
    """Runs `wells ARGS…` (`bench …` runs `wells-bench …`) and returns its standard output; a failure
    raises with the command and its stderr."""
    command = _command(args)
    result = subprocess.run(command, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"`{shlex.join(command)}` exited {result.returncode}:\n{result.stderr.strip()}")
    return result.stdout


def wells_timed(*args) -> tuple:
    """Runs `wells ARGS…` like wells() and returns (standard output, wall-clock seconds of the whole process)."""
    start = time.perf_counter()
    output = wells(*args)
    return output, time.perf_counter() - start


def wells_json(*args):
    """Runs `wells ARGS… --format json` and parses its output."""
    return json.loads(wells(*args, "--format", "json"))


def show_command(*args) -> str:
    """The command line as a reader would type it (binary shown as `wells`, paths relative to WELLS_WORK or,
    for the repository's files, to the repository)."""
    shown = [str(a).replace(str(WORK) + os.sep, "").replace(str(REPO) + os.sep, "") for a in args]
    if shown and shown[0] == "bench":
        return "wells-bench " + shlex.join(shown[1:])
    return "wells " + shlex.join(shown)


def fresh_store(csv: Path, db: Path) -> dict:
    """Deletes DB (and its -wal/-shm), loads CSV into it, and returns the JSON load summary."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    return wells_json("load", csv, "--db", db, "-q")


def ensure_synthetic_store() -> Path:
    """The synthetic store of COUNT wells; generated and loaded only when a previous notebook has not."""
    if not SYNTHETIC_DB.exists():
        wells("generate", "--count", COUNT, "--seed", 1, "--out", SYNTHETIC_CSV)
        fresh_store(SYNTHETIC_CSV, SYNTHETIC_DB)
    return SYNTHETIC_DB


def ensure_tn_store() -> Path:
    """The store of the real Tennessee well list; loaded only when a previous notebook has not."""
    if not TN_DB.exists():
        fresh_store(TN_CSV, TN_DB)
    return TN_DB


def limit_query() -> Path:
    """The C reference bbox timer (bbox_query.c): $LIMIT_QUERY, or built here with gcc."""
    if os.environ.get("LIMIT_QUERY"):
        return Path(os.environ["LIMIT_QUERY"])
    binary = WORK / "limit_query"
    if not binary.exists():
        subprocess.run(["gcc", "-O2", "-o", str(binary), str(TOOLS / "bbox_query.c"), "-lsqlite3"], check=True)
    return binary


def limit_load() -> Path:
    """The C reference loader writing WellKit's schema (limit_load_wellkit.c): $LIMIT_LOAD, or built here with gcc."""
    if os.environ.get("LIMIT_LOAD"):
        return Path(os.environ["LIMIT_LOAD"])
    binary = WORK / "limit_load"
    if not binary.exists():
        subprocess.run(["gcc", "-O2", "-o", str(binary), str(TOOLS / "limit_load_wellkit.c"), "-lsqlite3", "-lm"], check=True)
    return binary


def scale_sizes() -> list:
    """The well counts notebook 04 loads: $WELLS_SCALE_SIZES (comma-separated), else COUNT/10, COUNT/3 and COUNT."""
    text = os.environ.get("WELLS_SCALE_SIZES", "").strip()
    sizes = [int(part) for part in text.split(",") if part.strip()] if text else [COUNT // 10, COUNT // 3, COUNT]
    return sorted({size for size in sizes if size > 0})


SCALE_ROUNDS = int(os.environ.get("WELLS_SCALE_ROUNDS", "3"))
# A report of `wells-bench scale --format json` to plot instead of running one (for a long run done separately).
SCALE_JSON = Path(os.environ["WELLS_SCALE_JSON"]) if os.environ.get("WELLS_SCALE_JSON") else None

FIGURES = NOTEBOOKS / "figures"


def save_figure(figure, name: str) -> Path:
    """Saves FIGURE as NAME in Notebooks/figures, or in WELLS_WORK when run.sh runs in check mode."""
    folder = WORK if os.environ.get("WELLS_NOTEBOOKS_MODE") == "check" else FIGURES
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    figure.savefig(path, dpi=100, bbox_inches="tight")
    return path


def read_wells(db: Path) -> pd.DataFrame:
    """Every well as one row: the store's layer `wells` (pins, points and details with names and dates as
    text), read read-only with Python's sqlite3 (no SpatiaLite needed)."""
    sql = """
        SELECT id, name, lat, lon, uwi, operator, status, type, county, state, spud_date, total_depth
        FROM wells
    """
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return pd.read_sql_query(sql, connection)


def timed(command: list, stdout=subprocess.DEVNULL) -> float:
    """Wall-clock seconds of one subprocess run, start-up included; raises if it fails."""
    start = time.perf_counter()
    subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, check=True)
    return time.perf_counter() - start


def environment() -> pd.DataFrame:
    """What this run used, for the record at the top of each notebook."""
    version = wells("--version").strip()
    rows = [
        # A binary outside the repository is named, not located: its path says nothing about this repository.
        ("wells binary", str(WELLS.relative_to(REPO)) if WELLS.is_relative_to(REPO) else f"$WELLS_BIN ({WELLS.name})"),
        ("wells --version", version),
        ("synthetic rows (WELLS_COUNT)", f"{COUNT:,}"),
        ("real data", "Data/real" + ("" if DATA.exists() else "  (MISSING)")),
        ("ogrinfo", shutil.which("ogrinfo") or "not on PATH"),
        ("CPU cores", os.cpu_count()),
    ]
    return pd.DataFrame(rows, columns=["setting", "value"]).set_index("setting")
