#!/usr/bin/env bash
# Two packages whose extension _user calls core_fn, defined by its sibling
# libcore, which it does not link: graph-tool's shape (Debian's
# python3-graph-tool imports libgraph_tool_core through dl_import, which
# sets RTLD_GLOBAL around exec() of the import statement its caller hands
# it). gt imports libcore that way, then _user: `python3 -c 'import gt'`
# works. env imports libcore RTLD_GLOBAL only when ENV_GLOBAL is set:
# `python3 -c 'import env'` fails (undefined symbol: core_fn) and
# `ENV_GLOBAL=1 python3 -c 'import env'` works.
set -euo pipefail
out=$1
suffix=$(python3-config --extension-suffix)
for pkg in gt env; do
  mkdir -p "$out/$pkg"
  gcc -shared -fPIC $(python3-config --includes) -DMODNAME='"libcore"' -DMOD=libcore -o "$out/$pkg/libcore$suffix" core.c
  gcc -shared -fPIC $(python3-config --includes) -DMODNAME='"_user"' -DMOD=_user -o "$out/$pkg/_user$suffix" user.c
done
cat > "$out/gt/dl_import.py" <<'PY'
import sys
from ctypes import RTLD_GLOBAL

__all__ = ["dl_import"]


def dl_import(import_expr):
    """Import module according to import_expr, but with RTLD_GLOBAL enabled."""
    call_frame = sys._getframe(1)
    orig_dlopen_flags = sys.getdlopenflags()
    sys.setdlopenflags(RTLD_GLOBAL | orig_dlopen_flags)
    try:
        exec(import_expr, call_frame.f_locals, call_frame.f_globals)
    finally:
        sys.setdlopenflags(orig_dlopen_flags)
PY
cat > "$out/gt/__init__.py" <<'PY'
from .dl_import import *
dl_import("from . import libcore")
from . import _user
PY
cat > "$out/env/__init__.py" <<'PY'
import os
import sys
if os.getenv("ENV_GLOBAL"):
    sys.setdlopenflags(os.RTLD_GLOBAL | os.RTLD_NOW)
from . import libcore
from . import _user
PY
