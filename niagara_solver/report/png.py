"""PNG pictures: an SVG picture (:mod:`.svg`) rasterised by resvg (the ``resvg-py`` package, a wheel with nothing
to build and no system library), with the DejaVu fonts that matplotlib ships, not the machine's, so that a picture
reads the same on every machine."""

from __future__ import annotations

import os

from niagara_solver.model.errors import InputError

#: PNG pixels per SVG unit: twice the SVG's size, so that the small labels stay readable.
ZOOM = 2.0


def png_bytes(svg: str) -> bytes:
    """The PNG file of an SVG picture."""
    try:  # imported here: an optional wheel, refused with a message where it is missing
        import resvg_py
    except ImportError:  # an install older than the dependency
        raise InputError("--out", "writing PNG needs the resvg-py package (pip install resvg-py), or write .svg",
                         "FORMAT") from None
    import matplotlib  # imported here: only a PNG needs its fonts, and it takes a second to import
    fonts = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    data = resvg_py.svg_to_bytes(svg_string=svg, zoom=ZOOM, skip_system_fonts=True, font_dirs=[fonts],
                                 font_family="DejaVu Sans", sans_serif_family="DejaVu Sans")
    return bytes(data)
