"""Checks of load_race.py that time nothing: its DuckDB script quotes what it is given and loads a
table with a point per row and an RTREE index (with the pinned DuckDB, skipped where setup.sh has
not run), and bad arguments end with the documented exit codes.

    python3 -m unittest discover -s Benchmarks/duckdb -p 'test_*.py'
"""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load_race  # noqa: E402


class QuotingTests(unittest.TestCase):
    def test_quotes_are_doubled(self):
        self.assertEqual(load_race.sql_string("/tmp/it's.csv"), "'/tmp/it''s.csv'")
        self.assertEqual(load_race.sql_identifier('lat "deg"'), '"lat ""deg"""')

    def test_control_characters_are_refused(self):
        for text in ["a\nb", "a\rb", "tab\there", "bell\x07", "del\x7f"]:
            with self.assertRaises(load_race.BenchError) as caught:
                load_race.sql_string(text)
            self.assertEqual(caught.exception.code, load_race.EX_USAGE)
            with self.assertRaises(load_race.BenchError):
                load_race.sql_identifier(text)

    def test_the_load_script_names_its_parts_quoted(self):
        script = load_race.duckdb_load_script("/d/it's.csv", 'y"', "x", "/d/ext")
        self.assertIn("SET extension_directory = '/d/ext';", script)
        self.assertIn("LOAD spatial;", script)
        self.assertIn("""ST_Point("x", "y\"\"") AS geom FROM read_csv('/d/it''s.csv')""", script)
        self.assertIn("USING RTREE (geom)", script)


class DuckDBLoadTests(unittest.TestCase):
    """The scripts run by the pinned CLI on a three-well list whose path and column names need quoting."""

    def setUp(self):
        self.duckdb, reason = load_race.find_duckdb(str(load_race.ROOT / ".build" / "duckdb-venv"))
        if self.duckdb is None:
            self.skipTest(reason)

    def run_script(self, store, script_text, directory, name):
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(script_text)
        result = subprocess.run([self.duckdb.cli, "-no-init", "-batch", "-bail", "-list", "-noheader", store, "-f", path],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def test_the_scripts_load_a_point_per_row_with_an_rtree(self):
        with tempfile.TemporaryDirectory() as top:
            directory = os.path.join(top, "it's here")
            os.mkdir(directory)
            csv = os.path.join(directory, "wells 'a'.csv")
            with open(csv, "w", encoding="utf-8") as f:
                f.write('uwi,"lat ""deg""",lon\n100/1,50.5,-110.25\n100/2,51.0,-111.5\n100/3,52.25,-112.0\n')
            extensions = os.path.join(directory, "ext")
            self.run_script(":memory:", load_race.duckdb_install_script(self.duckdb.extension, extensions), directory, "install.sql")
            store = os.path.join(directory, "w.duckdb")
            self.run_script(store, load_race.duckdb_load_script(csv, 'lat "deg"', "lon", extensions), directory, "load.sql")
            check = (load_race.duckdb_count_script(extensions)
                     + "SELECT string_agg(ST_AsText(geom), ';' ORDER BY uwi) FROM wells;\n"
                     + "SELECT index_name FROM duckdb_indexes() WHERE sql LIKE '%RTREE%';\n")
            self.assertEqual(self.run_script(store, check, directory, "check.sql").split("\n")[:3],
                             ["3", "POINT (-110.25 50.5);POINT (-111.5 51);POINT (-112 52.25)", "wells_geom"])
            self.assertGreater(load_race.store_bytes(store), 0)


class ArgumentTests(unittest.TestCase):
    def exit_code(self, argv):
        with self.assertRaises(load_race.BenchError) as caught:
            load_race.parse_arguments(argv)
        return caught.exception.code

    def test_bad_arguments_are_usage_errors(self):
        wells = ["--wells", sys.executable]   # any executable passes the binary check
        self.assertEqual(self.exit_code(wells + ["--rounds", "0"]), 64)
        self.assertEqual(self.exit_code(wells + ["--sizes", "244292,many"]), 64)
        self.assertEqual(self.exit_code(wells + ["--sizes", "10000000"]), 64)
        self.assertEqual(self.exit_code(wells + ["--lat", "y"]), 64)
        self.assertEqual(self.exit_code(["--wells", "/nonexistent/wells"]), 64)
        self.assertEqual(self.exit_code(wells + ["--file", "/nonexistent/wells.csv"]), 66)

    def test_sizes_default_unless_a_file_is_given(self):
        self.assertEqual(load_race.parse_arguments(["--wells", sys.executable]).size_list, [244_292, 2_442_920])
        self.assertEqual(load_race.parse_arguments(["--wells", sys.executable, "--file", __file__]).size_list, [])


if __name__ == "__main__":
    unittest.main()
