"""The fastest peer the foundation issue names: geopandas with pyogrio and Arrow, a well CSV to a
GeoPackage point layer with a spatial index.

Usage: python3 peer_geopandas.py WELLS.csv OUT.gpkg LAT_COLUMN LON_COLUMN

The CSV is read by pandas with the pyarrow engine (the fastest CSV reader pandas has), the points
are made by geopandas, and pyogrio writes them through GDAL with Arrow. `wells bench load` runs it
when `python3 -c "import geopandas, pyogrio, pyarrow"` works (pip install geopandas pyogrio pyarrow).
"""
import sys

import geopandas as gpd
import pandas as pd
import pyogrio

src, dst, lat, lon = sys.argv[1:5]
frame = pd.read_csv(src, engine="pyarrow", dtype_backend="pyarrow")
points = gpd.points_from_xy(pd.to_numeric(frame[lon], errors="coerce"), pd.to_numeric(frame[lat], errors="coerce"))
wells = gpd.GeoDataFrame(frame, geometry=points, crs="EPSG:4326")
pyogrio.write_dataframe(wells, dst, driver="GPKG", layer="wells", use_arrow=True, layer_options={"SPATIAL_INDEX": "YES"})
