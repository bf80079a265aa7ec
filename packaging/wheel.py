"""Writes a wheel that carries one executable, as pip installs it onto PATH.

    python3 wheel.py BINARY VERSION TAGS OUTDIR

TAGS is the compressed platform tag (manylinux_2_17_x86_64.manylinux2014_x86_64...).
The binary goes to etlink-VERSION.data/scripts/etlink with mode 0755: pip copies
a script that does not start with "#!python" as it is, executable, into the
environment's bin directory. Entries are dated SOURCE_DATE_EPOCH (the commit's
time) so the same commit gives the same wheel. Standard library only: the wheel
must build where the package index is out of reach.
"""

import base64
import hashlib
import os
import sys
import time
import zipfile

SUMMARY = "Checks what the linker and the loader will do with the C++ libraries a Python wheel ships"


def digest(data):
    """RECORD's hash: sha256, urlsafe base64 without padding (PEP 376, 427)."""
    b64 = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + b64.decode()


def metadata(version):
    return (
        "Metadata-Version: 2.1\n"
        "Name: etlink\n"
        f"Version: {version}\n"
        f"Summary: {SUMMARY}\n"
        "Home-page: https://github.com/etlink/etlink\n"
        "\n"
        "A static etlink binary, installed as the etlink command.\n"
    )


def wheel_file(tags):
    lines = ["Wheel-Version: 1.0", "Generator: etlink packaging/wheel.py", "Root-Is-Purelib: false"]
    lines += [f"Tag: py3-none-{platform}" for platform in tags.split(".")]
    return "\n".join(lines) + "\n"


def entry(name, mode, epoch):
    """A zip entry for name with Unix mode bits, dated epoch (zip cannot say before 1980)."""
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    info = zipfile.ZipInfo(name, date_time=stamp)
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_wheel(binary, version, tags, outdir, epoch):
    with open(binary, "rb") as f:
        exe = f.read()
    dist_info = f"etlink-{version}.dist-info"
    files = [
        (f"etlink-{version}.data/scripts/etlink", exe, 0o755),
        (f"{dist_info}/METADATA", metadata(version).encode(), 0o644),
        (f"{dist_info}/WHEEL", wheel_file(tags).encode(), 0o644),
    ]
    record = "".join(f"{name},{digest(data)},{len(data)}\n" for name, data, _ in files)
    files.append((f"{dist_info}/RECORD", (record + f"{dist_info}/RECORD,,\n").encode(), 0o644))
    path = os.path.join(outdir, f"etlink-{version}-py3-none-{tags}.whl")
    with zipfile.ZipFile(path, "w") as whl:
        for name, data, mode in files:
            whl.writestr(entry(name, mode, epoch), data)
    return path


def main(argv):
    if len(argv) != 5:
        sys.exit("usage: wheel.py BINARY VERSION TAGS OUTDIR")
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    print(write_wheel(argv[1], argv[2], argv[3], argv[4], epoch))


if __name__ == "__main__":
    main(sys.argv)
