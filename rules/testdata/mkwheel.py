"""mkwheel.py WHEEL ENTRY=FILE[:MODE]...: a wheel (a zip) holding FILE as
ENTRY, with Unix mode MODE (octal, default 644) and a fixed timestamp; an
ENTRY given twice is written twice. The rule cases' build.sh use it."""
import sys
import warnings
import zipfile

warnings.simplefilter("ignore")  # zipfile warns about a duplicate name: that is the point
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for arg in sys.argv[2:]:
        entry, spec = arg.split("=", 1)
        path, _, mode = spec.partition(":")
        info = zipfile.ZipInfo(entry, date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | int(mode or "644", 8)) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(path, "rb") as f:
            z.writestr(info, f.read())
