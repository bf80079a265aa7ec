"""mkwheel.py WHEEL ENTRY=FILE...: packs FILEs into WHEEL as its entries,
with the dist-info a wheel has (METADATA, WHEEL with the file name's tags,
RECORD with every entry's hash): auditwheel reads a wheel's files from its
RECORD."""
import base64, hashlib, os, sys, zipfile

wheel, pairs = sys.argv[1], sys.argv[2:]
name, version, py, abi, plats = os.path.basename(wheel)[:-4].split("-")
info = f"{name}-{version}.dist-info"
files = {}
for pair in pairs:
    entry, path = pair.split("=", 1)
    with open(path, "rb") as f:
        files[entry] = f.read()
files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
files[f"{info}/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: etlink-testdata\nRoot-Is-Purelib: false\n"
                          + "".join(f"Tag: {py}-{abi}-{p}\n" for p in plats.split("."))).encode()
digest = lambda d: base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
record = "".join(f"{n},sha256={digest(d)},{len(d)}\n" for n, d in files.items()) + f"{info}/RECORD,,\n"
stamp = (2026, 1, 1, 0, 0, 0)
with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files.items():
        zi = zipfile.ZipInfo(n, date_time=stamp)
        zi.external_attr = (0o755 if ".so" in n else 0o644) << 16
        z.writestr(zi, d, zipfile.ZIP_DEFLATED)
    z.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=stamp), record)
