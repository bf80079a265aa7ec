#!/usr/bin/env bash
# Builds the wheels of the platform-policy test (cmd/etlink/policy_test.go)
# into OUTDIR: libraries that need GLIBC_2.17, 2.28 and 2.34 from the system
# (src/g2*.c: clock_gettime, fcntl64, pthread_create, as glibc 2.34+ headers
# and libc.so.6 version them) and one that needs libcrypt.so.1 (in no
# policy), packed into wheels tagged right and wrong, for x86_64 (gcc) and
# aarch64 (aarch64-linux-gnu-gcc). WHEELS lists each wheel with the source
# it packs; AUDITWHEEL.txt holds auditwheel show's verdict on each
# (auditwheel.sh regenerates it).
#
# usage: build.sh OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUTDIR}
mkdir -p "$out"
declare -A cc=([x86_64]=gcc [aarch64]=aarch64-linux-gnu-gcc)
while read -r wheel src; do
	case $wheel in '' | '#'*) continue ;; esac
	arch=${wheel##*_}
	arch=${arch%.whl}
	[[ $arch == 64 ]] && arch=x86_64 # ..._x86_64.whl
	lib="$out/lib-$src-$arch.so"
	if [[ ! -e $lib ]]; then
		libs=()
		[[ $src == crypt ]] && libs=(-lcrypt)
		"${cc[$arch]}" -O2 -shared -fPIC -o "$lib" "$here/src/$src.c" "${libs[@]}"
	fi
	python3 - "$out/$wheel" "$lib" <<'PY'
import base64, hashlib, os, sys, zipfile
wheel, lib = sys.argv[1], sys.argv[2]
name, version = os.path.basename(wheel).split("-")[:2]
py, abi, plats = os.path.basename(wheel)[:-4].split("-")[2:]
info = f"{name}-{version}.dist-info"
files = {
    f"{name}/_lib.so": open(lib, "rb").read(),
    f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
    f"{info}/WHEEL": ("Wheel-Version: 1.0\nGenerator: etlink-testdata\nRoot-Is-Purelib: false\n"
                      + "".join(f"Tag: {py}-{abi}-{plat}\n" for plat in plats.split("."))).encode(),
}
record = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for n, d in files.items())
with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files.items():
        info_ = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
        info_.external_attr = (0o755 if n.endswith(".so") else 0o644) << 16
        z.writestr(info_, d, zipfile.ZIP_DEFLATED)
    z.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(2026, 1, 1, 0, 0, 0)), record + f"{info}/RECORD,,\n")
PY
done <"$here/WHEELS"
