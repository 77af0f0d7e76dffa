"""Schemathesis' values for the two string formats of `wells serve`'s /api that JSON Schema cannot
spell out: `bbox` (latitudes from -90 to 90 with minLat <= maxLat, which a pattern cannot order)
and `cql2-text` (CQL2 text, a language). Loaded with SCHEMATHESIS_HOOKS=schemathesis_hooks.

Everything else schemathesis generates from the document alone.
"""

from hypothesis import strategies as st

import schemathesis

longitudes = st.floats(min_value=-180, max_value=180, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 4))
latitudes = st.floats(min_value=-90, max_value=90, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 4))


def _bbox(values):
    west, east, (south, north) = values[0], values[1], sorted(values[2:])
    return ",".join(format(v, "g") if abs(v) >= 1e-4 or v == 0 else "0" for v in (west, south, east, north))


schemathesis.openapi.format("bbox", st.tuples(longitudes, longitudes, latitudes, latitudes).map(_bbox))

# Comparisons over the queryables, combined with AND, OR and NOT: no S_INTERSECTS, which tiles refuse.
_text_fields = ["status", "operator", "type", "county", "state", "uwi", "name"]
_number_fields = ["total_depth", "ground_elevation", "wellkit_id", "id"]
_words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"], exclude_characters="\\"), max_size=12).map(lambda s: "'" + s.replace("'", "''") + "'")
_numbers = st.integers(min_value=-100000, max_value=100000).map(str)
_comparison = st.one_of(
    st.tuples(st.sampled_from(_text_fields), st.sampled_from(["=", "<>", "LIKE"]), _words).map(" ".join),
    st.tuples(st.sampled_from(_number_fields), st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), _numbers).map(" ".join),
    st.sampled_from(_text_fields + _number_fields).map(lambda f: f + " IS NULL"),
    st.tuples(st.sampled_from(_number_fields), _numbers, _numbers).map(lambda t: f"{t[0]} BETWEEN {min(t[1:], key=int)} AND {max(t[1:], key=int)}"),
)
_filter = st.recursive(_comparison, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from(["AND", "OR"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    inner.map(lambda f: f"NOT ({f})"),
), max_leaves=4)
schemathesis.openapi.format("cql2-text", _filter)
