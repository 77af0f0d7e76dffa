#!/usr/bin/env python3
"""wells serve beside pygeoapi and tipg (issue 29): the same wells, the same OGC API requests, wrk
against each server in interleaved rounds.

    bash Benchmarks/peers/setup.sh                     # once: pygeoapi, gunicorn, tipg, uvicorn in .build/peers-venv
    python3 Benchmarks/peers/serve_race.py             # 244,292 wells, 3 rounds of 5 s per run
    python3 Benchmarks/peers/serve_race.py --count 20000 --rounds 1 --duration 3 --json

The servers, each given the 2 cores as its documentation suggests:
- `wells serve` on the SpatiaLite store (as users run it: its cache on, every URL answered once
  before the runs), on a PostgreSQL/PostGIS copy of the same wells (the same release binary, `--db
  postgresql://…`, its cache on and warmed too), and on the file with its cache off (`--cache-mb 0`:
  every answer made anew, as the peers make theirs);
- pygeoapi 0.21 (Flask under gunicorn, 2 workers) with its OGR provider on the SpatiaLite store's
  `wells` layer, every field (its SQLiteGPKG provider finds no geometry in a SpatiaLite view);
- tipg 1.6 (FastAPI under uvicorn, 2 workers) on the PostgreSQL copy: items from a view of pins and
  details (`wells_layer`, every field), tiles from `pins`.
The PostgreSQL copy is a throwaway cluster of Tests/Support/pg-cluster.sh (fsync off), loaded by
`wells load`; the file store and the list are made by the wells binary (`wells generate --seed 1`).

The workloads, each URL asking for up to 1,000 wells, as GeoJSON, without compression:
- items, one box repeated: the city box (0.05°) around a random well, every request the same;
- items, boxes that vary: --paths city boxes around random wells, each request the next;
- z11 tiles under random wells, each request the next (pygeoapi serves no vector tiles: not run).
Before the runs, each server's answer for the same box is checked to hold the same number of wells.

wrk runs `-t2 -c CONNECTIONS -d DURATION --latency --timeout 10s`; a run with socket errors or
non-2xx answers is reported, not hidden. The rounds visit the servers in turn, the order reversed
every other round. Reported: the median requests/s of each server and workload, the p50 latency, and
the ratio to wells serve's (file) in the same round, median over rounds.

Exit codes: 64 for bad arguments, 69 when a tool is missing (the venv, wrk, the cluster), 70 when a
server does not answer or answers differently.
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EX_USAGE, EX_UNAVAILABLE, EX_SOFTWARE = 64, 69, 70


class BenchError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()


def wait_until_answers(url, process, name, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            raise BenchError(f"{name} exited with {process.returncode} before answering {url}", EX_SOFTWARE)
        try:
            get(url, timeout=5)
            return
        except Exception:
            time.sleep(0.3)
    raise BenchError(f"{name} did not answer {url} within {seconds} s", EX_SOFTWARE)


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise BenchError(f"{' '.join(map(str, argv))} failed ({result.returncode}): {result.stderr.strip()[-600:]}", EX_SOFTWARE)
    return result.stdout


# MARK: The servers

PYGEOAPI_CONFIG = """\
server:
  bind: {{host: 127.0.0.1, port: {port}}}
  url: http://127.0.0.1:{port}
  mimetype: application/json; charset=UTF-8
  encoding: utf-8
  languages: [en-US]
  limits: {{default_items: 100, max_items: 10000}}
  map: {{url: "https://tile.openstreetmap.org/{{z}}/{{x}}/{{y}}.png", attribution: OpenStreetMap}}
logging: {{level: ERROR}}
metadata:
  identification: {{title: wells, description: wells, keywords: [wells], keywords_type: theme, terms_of_service: none, url: "http://127.0.0.1"}}
  license: {{name: CC-BY 4.0, url: "https://creativecommons.org/licenses/by/4.0/"}}
  provider: {{name: WellKit, url: "http://127.0.0.1"}}
  contact: {{name: WellKit, position: none, address: none, city: none, stateorprovince: none, postalcode: none, country: none, phone: none, fax: none, email: none, url: "http://127.0.0.1", hours: none, instructions: none, role: pointOfContact}}
resources:
  wells:
    type: collection
    title: Wells
    description: Wells
    keywords: [wells]
    extents:
      spatial: {{bbox: [-180, -90, 180, 90], crs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84"}}
    providers:
      - type: feature
        name: OGR
        data:
          source_type: SQLite
          source: {store}
          source_srs: EPSG:4326
          target_srs: EPSG:4326
          source_capabilities: {{paging: True}}
          source_options: {{}}
          gdal_ogr_options: {{}}
        id_field: id
        layer: wells
"""


class Server:
    """A server under test: how to start it, and its URLs for a box and a tile."""

    def __init__(self, name, argv, env, port, items, tile, check):
        self.name, self.argv, self.env, self.port = name, argv, env, port
        self.items, self.tile, self.check = items, tile, check
        self.process = None

    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, log_directory):
        log = open(log_directory / f"{re.sub('[^a-z0-9]+', '-', self.name.lower())}.log", "w")
        self.process = subprocess.Popen(self.argv, env={**os.environ, **self.env}, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        wait_until_answers(self.base() + self.check, self.process, self.name)

    def stop(self):
        if self.process and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, 15)
                self.process.wait(timeout=15)
            except Exception:
                os.killpg(self.process.pid, 9)


def box_path(server, box):
    return server.items.format(bbox=",".join(f"{v:.6f}" for v in box))


def features(server, box):
    document = json.loads(get(server.base() + box_path(server, box)))
    return len(document["features"])


# MARK: wrk

def wrk_script(paths, directory, name):
    path = directory / f"{name}.lua"
    quoted = ",\n".join(json.dumps(p) for p in paths)
    path.write_text("paths = {\n" + quoted + "\n}\ncounter = 0\nrequest = function()\n  counter = counter + 1\n"
                    "  return wrk.format(\"GET\", paths[(counter % #paths) + 1])\nend\n")
    return path


def wrk(base, paths, connections, duration, directory, name):
    script = wrk_script(paths, directory, name)
    out = run(["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "10s", "-s", str(script), base])
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", out)
    p50_ms = float(p50.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p50.group(2)] if p50 else None
    errors = re.search(r"Socket errors: (.*)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    problems = []
    if errors:
        problems.append("socket errors: " + errors.group(1).strip())
    if non2xx:
        problems.append(f"{non2xx.group(1)} non-2xx answers")
    return {"rate": rate, "requests": requests, "p50_ms": p50_ms, "problems": problems}


# MARK: Main

class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"serve_race.py: {message}", file=sys.stderr)
        sys.exit(EX_USAGE)


def parse_arguments(argv):
    parser = ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wells", metavar="PATH", help="the wells binary (default: .build/release/wells of this repository)")
    parser.add_argument("--count", type=int, default=244_292, help="wells to generate (wells generate --seed 1; default 244292)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every server and workload (default 3)")
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run (default 5)")
    parser.add_argument("--connections", type=int, default=16, help="wrk's open connections (default 16)")
    parser.add_argument("--paths", type=int, default=40, help="different boxes and tiles cycled through (default 40)")
    parser.add_argument("--venv", metavar="DIR", default=str(ROOT / ".build" / "peers-venv"), help="made by Benchmarks/peers/setup.sh")
    parser.add_argument("--work", metavar="DIR", help="where the list, the store and the cluster go (default: a new temporary directory, removed)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    for name in ("count", "rounds", "duration", "connections", "paths"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return args


def main(argv):
    args = parse_arguments(argv)
    wells = Path(args.wells or ROOT / ".build" / "release" / "wells").resolve()
    venv = Path(args.venv)
    for tool, where in [(wells, "build it: swift build -c release --product wells"),
                        (venv / "bin" / "gunicorn", "run: bash Benchmarks/peers/setup.sh"),
                        (venv / "bin" / "uvicorn", "run: bash Benchmarks/peers/setup.sh")]:
        if not Path(tool).exists():
            raise BenchError(f"{tool} not found; {where}", EX_UNAVAILABLE)
    if not shutil.which("wrk"):
        raise BenchError("wrk not found; install it (Debian: apt-get install wrk)", EX_UNAVAILABLE)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="serve-race-"))
    work.mkdir(parents=True, exist_ok=True)
    # pg-cluster.sh runs the server as another user, who must be able to reach the cluster's folder.
    os.chmod(work, 0o755)
    cluster = work / "pg"
    servers = []
    log = (lambda text: None) if args.json else (lambda text: print(text, file=sys.stderr, flush=True))
    try:
        csv = work / f"wells-{args.count}.csv"
        if not csv.exists():
            log(f"generating {args.count:,} wells")
            run([str(wells), "generate", "--count", str(args.count), "--seed", "1", "--out", str(csv)])
        store = work / "wells.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(str(store) + suffix).unlink(missing_ok=True)
        log("loading the file store and a throwaway PostgreSQL cluster")
        run([str(wells), "load", str(csv), "--db", str(store), "--quiet"])
        shutil.rmtree(cluster, ignore_errors=True)
        url = run(["bash", str(ROOT / "Tests" / "Support" / "pg-cluster.sh"), "start", str(cluster)]).strip()
        run([str(wells), "load", str(csv), "--db", url, "--quiet"])
        # Every field for tipg's items, as wells serve and pygeoapi give them; tipg reads the catalog at start-up.
        run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c",
             "CREATE VIEW wells_layer AS SELECT p.id, p.name, p.lat, p.lon, d.uwi, d.operator, d.status, d.type, d.fluid, d.field, "
             "d.formation, d.county, d.state, d.licence, d.spud_date, d.completion_date, d.plug_date, d.total_depth, "
             "d.ground_elevation, d.kb_elevation, d.extra, p.geom FROM pins p JOIN details d ON d.pin_id = p.id"])

        # The boxes and tiles, around wells drawn with a fixed seed.
        connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        pins = connection.execute("SELECT lon, lat FROM pins ORDER BY id").fetchall()
        connection.close()
        rng = random.Random(1)
        chosen = [pins[rng.randrange(len(pins))] for _ in range(args.paths)]
        boxes = [(lon - 0.025, lat - 0.025, lon + 0.025, lat + 0.025) for lon, lat in chosen]
        n = 2 ** 11
        tiles = [(int((lon + 180) / 360 * n), int((1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n))
                 for lon, lat in chosen]

        pygeoapi_config = work / "pygeoapi.yml"
        pygeoapi_port = free_port()
        pygeoapi_config.write_text(PYGEOAPI_CONFIG.format(port=pygeoapi_port, store=store))
        pygeoapi_env = {"PYGEOAPI_CONFIG": str(pygeoapi_config), "PYGEOAPI_OPENAPI": str(work / "pygeoapi-openapi.yml")}
        run([str(venv / "bin" / "pygeoapi"), "openapi", "generate", str(pygeoapi_config), "--output-file", pygeoapi_env["PYGEOAPI_OPENAPI"]],
            env={**os.environ, **pygeoapi_env})
        ports = [free_port() for _ in range(4)]
        servers = [
            Server("wells serve (file)", [str(wells), "serve", "--db", str(store), "--port", str(ports[0]), "--log-level", "warning"], {},
                   ports[0], "/collections/wells/items?bbox={bbox}&limit=1000", "/tiles/11/{x}/{y}.mvt", "/collections/wells"),
            Server("wells serve (PostgreSQL)", [str(wells), "serve", "--db", url, "--port", str(ports[1]), "--log-level", "warning"], {},
                   ports[1], "/collections/wells/items?bbox={bbox}&limit=1000", "/tiles/11/{x}/{y}.mvt", "/collections/wells"),
            Server("wells serve (file, cache off)", [str(wells), "serve", "--db", str(store), "--port", str(ports[3]), "--log-level", "warning",
                                                    "--cache-mb", "0"], {},
                   ports[3], "/collections/wells/items?bbox={bbox}&limit=1000", "/tiles/11/{x}/{y}.mvt", "/collections/wells"),
            Server("pygeoapi 0.21 (OGR, gunicorn -w 2)", [str(venv / "bin" / "gunicorn"), "pygeoapi.flask_app:APP", "-w", "2",
                                                         "-b", f"127.0.0.1:{pygeoapi_port}"], pygeoapi_env,
                   pygeoapi_port, "/collections/wells/items?bbox={bbox}&limit=1000&f=json", None, "/collections/wells?f=json"),
            Server("tipg 1.6 (uvicorn --workers 2)", [str(venv / "bin" / "uvicorn"), "tipg.main:app", "--host", "127.0.0.1",
                                                     "--port", str(ports[2]), "--workers", "2", "--log-level", "warning"],
                   {"DATABASE_URL": url}, ports[2], "/collections/public.wells_layer/items?bbox={bbox}&limit=1000&f=geojson",
                   "/collections/public.pins/tiles/WebMercatorQuad/11/{x}/{y}", "/collections/public.wells_layer"),
        ]
        for server in servers:
            log(f"starting {server.name}")
            server.start(work)
        counts = {server.name: features(server, boxes[0]) for server in servers}
        if len(set(counts.values())) != 1:
            raise BenchError(f"the servers answer the same box with different numbers of wells: {counts}", EX_SOFTWARE)

        workloads = [("items, one box repeated", lambda s: [box_path(s, boxes[0])]),
                     ("items, boxes that vary", lambda s: [box_path(s, b) for b in boxes]),
                     ("z11 tiles", lambda s: [s.tile.format(x=x, y=y) for x, y in tiles] if s.tile else None)]
        # wells serve answers each URL once before the runs, as a server that users have been using.
        for server in servers[:2]:
            for _, paths in workloads:
                for path in paths(server):
                    get(server.base() + path)
        results = {s.name: {w: [] for w, _ in workloads} for s in servers}
        for round_ in range(args.rounds):
            order = servers if round_ % 2 == 0 else list(reversed(servers))
            for server in order:
                for workload, paths in workloads:
                    urls = paths(server)
                    if urls is None:
                        continue
                    log(f"round {round_ + 1}/{args.rounds}: {server.name}, {workload}")
                    results[server.name][workload].append(
                        wrk(server.base(), urls, args.connections, args.duration, work, f"r{round_}"))
        report = {"wells": args.count, "rounds": args.rounds, "duration": args.duration, "connections": args.connections,
                  "paths": args.paths, "features_in_first_box": counts[servers[0].name], "results": results}
    finally:
        for server in servers:
            server.stop()
        if cluster.exists():
            subprocess.run(["bash", str(ROOT / "Tests" / "Support" / "pg-cluster.sh"), "stop", str(cluster)], capture_output=True)
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    reference = servers[0].name
    print(f"{args.count:,} wells (wells generate --seed 1); wrk -t2 -c{args.connections} -d{args.duration}s, {args.rounds} interleaved "
          f"rounds, medians; {args.paths} boxes (0.05°, up to 1,000 wells, {report['features_in_first_box']} in the repeated one) and z11 tiles:")
    header = ["server", "workload", "req/s", "p50 ms", "÷ wells serve (file)", "problems"]
    rows = []
    for server in servers:
        for workload, _ in workloads:
            runs = results[server.name][workload]
            if not runs:
                rows.append([server.name, workload, "n/a", "", "", "serves no vector tiles"])
                continue
            ours = results[reference][workload]
            ratios = [r["rate"] / o["rate"] for r, o in zip(runs, ours)]
            problems = sorted({p for r in runs for p in r["problems"]})
            rows.append([server.name, workload, f"{statistics.median(r['rate'] for r in runs):,.0f}",
                         f"{statistics.median(r['p50_ms'] for r in runs):.2f}" if all(r["p50_ms"] for r in runs) else "?",
                         f"{statistics.median(ratios):.4f}" if server.name != reference else "1", "; ".join(problems)])
    widths = [max(len(str(row[k])) for row in rows + [header]) for k in range(len(header))]
    for k, row in enumerate([header, ["-" * w for w in widths]] + rows):
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as error:
        print(f"serve_race.py: {error}", file=sys.stderr)
        sys.exit(error.code)
    except KeyboardInterrupt:
        sys.exit(130)
