"""A one-row reload into a big store, two builds of `wells` interleaved (Benchmarks/README.md's
"Writes of single wells"). Run in a folder holding one.csv (one row of the store's list) and two
copies of one loaded store, a.sqlite (for OLD) and b.sqlite (for NEW):

    python3 one-row-reload-ab.py OLD/wells NEW/wells
"""
import subprocess, time, statistics, sys
OLD, NEW = sys.argv[1], sys.argv[2]
def run(binary, db):
    t = time.perf_counter()
    subprocess.run([binary, "load", "one.csv", "--db", db], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
old, new = [], []
for k in range(11):
    old.append(run(OLD, "a.sqlite")); new.append(run(NEW, "b.sqlite"))
mo, mn = statistics.median(old), statistics.median(new)
print(f"one-row reload into 244,292 wells, 11 interleaved rounds: old median {mo*1000:.1f} ms, new median {mn*1000:.1f} ms, old/new {mo/mn:.2f}")
print("old", [round(x*1000,1) for x in old]); print("new", [round(x*1000,1) for x in new])
