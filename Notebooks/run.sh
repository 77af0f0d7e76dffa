#!/usr/bin/env bash
# Runs the WellKit notebooks top to bottom.
#
#   bash Notebooks/run.sh           execute in place: the notebooks are saved with their new outputs
#   bash Notebooks/run.sh --check   execute copies in a temporary folder; the committed notebooks are
#                                   left untouched (what CI runs; NOTEBOOKS_OUTPUT=tmp does the same)
#   bash Notebooks/run.sh --venv    only create or update the Python environment, Notebooks/.venv
#
# Environment:
#   WELLS_BIN     the wells executable (default: .build/release/wells, then .build/debug/wells,
#                 else `swift build -c release` is run first)
#   WELLS_COUNT   rows in the synthetic well list (default 244292; CI uses e.g. 50000)
#   WELLS_WORK    scratch folder for CSVs and stores (default: Notebooks/.venv/work, or a temporary
#                 folder with --check)
#   PYTHON        the Python used to create Notebooks/.venv (default python3, 3.11 or later)
#   WELLS_SCALE_SIZES   04's well counts, comma-separated (default WELLS_COUNT/10, /3 and WELLS_COUNT)
#   WELLS_SCALE_ROUNDS  04's rounds per size (default 3)
#   WELLS_SCALE_JSON    a `wells-bench scale --format json` report for 04 to plot instead of running one
# Exits non-zero if any cell of any notebook fails.
set -euo pipefail

NOTEBOOKS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$NOTEBOOKS/.." && pwd)"

mode=inplace
for arg in "$@"; do
    case "$arg" in
        --check) mode=check ;;
        --venv) mode=venv ;;
        -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument '$arg' (expected --check, --venv or --help)" >&2; exit 2 ;;
    esac
done
if [ "${NOTEBOOKS_OUTPUT:-}" = tmp ]; then mode=check; fi

say() { printf '==> %s\n' "$*" >&2; }
started=$SECONDS

# 1. The Python environment, reinstalled only when requirements.txt changes.
venv="$NOTEBOOKS/.venv"
if [ ! -x "$venv/bin/python" ]; then
    say "creating $venv"
    "${PYTHON:-python3}" -m venv "$venv"
fi
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$NOTEBOOKS/requirements.txt" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$wanted" ]; then
    say "installing Notebooks/requirements.txt"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$NOTEBOOKS/requirements.txt"
    # A kernel spec inside the venv, so "python3" means this environment, not another one on the machine.
    "$venv/bin/python" -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
    echo "$wanted" > "$stamp"
fi
[ "$mode" = venv ] && exit 0
export PYTHONDONTWRITEBYTECODE=1
export JUPYTER_PATH="$venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"

# 2. The wells executable.
if [ -n "${WELLS_BIN:-}" ]; then
    [ -x "$WELLS_BIN" ] || { echo "run.sh: WELLS_BIN=$WELLS_BIN is not an executable" >&2; exit 1; }
elif [ -x "$REPO/.build/release/wells" ]; then
    WELLS_BIN="$REPO/.build/release/wells"
elif [ -x "$REPO/.build/debug/wells" ]; then
    WELLS_BIN="$REPO/.build/debug/wells"
    say "warning: using a debug build ($WELLS_BIN); timings will not be representative"
else
    say "building wells (swift build -c release)"
    (cd "$REPO" && swift build -c release)
    WELLS_BIN="$REPO/.build/release/wells"
fi
WELLS_BIN="$(cd "$(dirname "$WELLS_BIN")" && pwd)/$(basename "$WELLS_BIN")"
export WELLS_BIN
say "wells: $WELLS_BIN"

# 3. Scratch space, and where executed notebooks go.
tmp=""
if [ "$mode" = check ]; then
    tmp="$(mktemp -d "${TMPDIR:-/tmp}/wellkit-notebooks.XXXXXX")"
    export WELLS_WORK="${WELLS_WORK:-$tmp/work}"
    output="$tmp/notebooks"
else
    export WELLS_WORK="${WELLS_WORK:-$venv/work}"
    output="$NOTEBOOKS"
fi
mkdir -p "$WELLS_WORK" "$output"
export WELLS_COUNT="${WELLS_COUNT:-244292}"
if [ -n "${WELLS_SCALE_JSON:-}" ]; then
    [ -r "$WELLS_SCALE_JSON" ] || { echo "run.sh: WELLS_SCALE_JSON=$WELLS_SCALE_JSON is not a readable file" >&2; exit 1; }
    WELLS_SCALE_JSON="$(cd "$(dirname "$WELLS_SCALE_JSON")" && pwd)/$(basename "$WELLS_SCALE_JSON")"   # the kernels run in Notebooks/
    export WELLS_SCALE_JSON
fi
[ -d "$REPO/Data/real" ] || { echo "run.sh: no real well lists at $REPO/Data/real" >&2; exit 1; }

# 4. The C reference query program and loader.
command -v gcc >/dev/null || { echo "run.sh: gcc is needed to build Benchmarks/Reference's bbox_query.c and limit_load_wellkit.c" >&2; exit 1; }
export LIMIT_QUERY="$WELLS_WORK/bbox_query"
gcc -O2 -o "$LIMIT_QUERY" "$REPO/Benchmarks/Reference/bbox_query.c" -lsqlite3
export LIMIT_LOAD="$WELLS_WORK/limit_load"
gcc -O2 -o "$LIMIT_LOAD" "$REPO/Benchmarks/Reference/limit_load_wellkit.c" -lsqlite3 -lm
export WELLS_NOTEBOOKS_MODE="$mode"

# 5. Execute every notebook; a notebook is written only when all of its cells succeeded.
say "executing notebooks ($mode mode, WELLS_COUNT=$WELLS_COUNT, outputs to $output)"
status=0
"$venv/bin/python" - "$NOTEBOOKS" "$output" "$WELLS_WORK" <<'PY' || status=$?
import sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

source, output, work = map(Path, sys.argv[1:4])
for path in sorted(source.glob("[0-9][0-9]-*.ipynb")):
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    print(f"--> {path.name}", file=sys.stderr, flush=True)
    client = NotebookClient(notebook, timeout=1200, kernel_name="python3",
                            resources={"metadata": {"path": str(source)}}, record_timing=False)
    try:
        client.execute()
    except CellExecutionError as error:
        failed = work / f"FAILED-{path.name}"
        nbformat.write(notebook, failed)
        print(f"{path.name} failed after {time.perf_counter() - start:.0f} s; executed copy: {failed}\n{error}",
              file=sys.stderr)
        sys.exit(1)
    nbformat.write(notebook, output / path.name)
    print(f"    ok in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
PY

if [ "$status" -ne 0 ]; then
    say "FAILED after $((SECONDS - started)) s"
    [ -n "$tmp" ] && say "kept $tmp for inspection"
    exit "$status"
fi
if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
say "all notebooks ran in $((SECONDS - started)) s ($mode mode)"
