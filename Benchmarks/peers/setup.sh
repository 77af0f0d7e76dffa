#!/usr/bin/env bash
# Makes the virtual environment that Benchmarks/peers/serve_race.py runs pygeoapi and tipg from:
# Debian's Python with its GDAL bindings (python3-gdal, installed if missing: pygeoapi's OGR
# provider reads the SpatiaLite store through them), and requirements.txt from PyPI.
#   bash Benchmarks/peers/setup.sh [VENV]      (default: .build/peers-venv, which git ignores)
# Benchmarks only: CI does not run it, and nothing in WellKit needs it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${1:-$root/.build/peers-venv}
missing=()
for p in python3-gdal python3-venv wrk postgresql-15-postgis-3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's Python: it loads SQLite extensions and sees python3-gdal (--system-site-packages).
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
echo "pygeoapi and tipg in $venv"
echo "Run: python3 Benchmarks/peers/serve_race.py --venv $venv"
