#!/usr/bin/env bash
# Prints "VERSION COMMIT DATE EPOCH" for the git checkout holding DIR
# (default: this one), as packaging/build-wheels.sh stamps them:
#   VERSION  PEP 440, from the nearest tag vX.Y.Z[{a,b,rc}N]: X.Y.Z on the tag,
#            X.Y.Z.postN+gHASH N commits after it, 0.0.0+gHASH with no tag,
#            with ".dirty" in the local part when tracked files are modified;
#   COMMIT   the full hash, "-dirty" when modified (as etlink version says it
#            of a go build);
#   DATE     the commit's time in UTC (RFC 3339), EPOCH the same in seconds.
# Outside a git checkout (a source archive) it says "0.0.0+unknown unknown
# unknown 315532800" (1980, the oldest time a wheel's zip entries can hold).
set -euo pipefail
cd "${1:-$(dirname "$0")}"
if ! git rev-parse --verify --quiet HEAD >/dev/null 2>&1; then
  echo "0.0.0+unknown unknown unknown 315532800"
  exit 0
fi
commit=$(git rev-parse HEAD)
short=$(git rev-parse --short=12 HEAD)
read -r epoch date < <(TZ=UTC git log -1 --format='%ct %cd' --date='format-local:%Y-%m-%dT%H:%M:%SZ' HEAD)
dirty=
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  dirty=.dirty
  commit+=-dirty
fi

if desc=$(git describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
  # vX.Y.Z-N-gHASH; the tag itself may hold dashes (v1.0.0-rc1).
  n=${desc%-g*}
  tag=${n%-*}
  n=${n##*-}
  release=${tag#v}
  release=${release//-/}
  if ! [[ $release =~ ^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?$ ]]; then
    echo "describe.sh: tag $tag is not a version (vX.Y.Z, vX.Y.Zrc1)" >&2
    exit 1
  fi
  if [ "$n" = 0 ] && [ -z "$dirty" ]; then
    version=$release
  elif [ "$n" = 0 ]; then
    version=$release+g$short$dirty
  else
    version=$release.post$n+g$short$dirty
  fi
else
  version=0.0.0+g$short$dirty
fi
echo "$version $commit $date $epoch"
