#!/usr/bin/env bash
# Makes the virtual environment that Benchmarks/duckdb/load_race.py finds DuckDB in: the pinned
# duckdb, duckdb-cli and duckdb-extension-spatial of requirements.txt, from PyPI.
#   bash Benchmarks/duckdb/setup.sh [VENV]      (default: .build/duckdb-venv, which git ignores)
# Benchmarks only: CI does not run it, and nothing in WellKit needs it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${1:-$root/.build/duckdb-venv}
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "setup.sh: $python not found: install Python 3.9 or later, or set PYTHON" >&2; exit 69; }
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
echo "DuckDB 1.5.5 (CLI and spatial extension) in $venv"
echo "Run: python3 Benchmarks/duckdb/load_race.py --venv $venv"
