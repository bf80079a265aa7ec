#!/usr/bin/env bash
# A build directory as CMake's File API leaves it (codemodel-v2,
# toolchains-v1, cmakeFiles-v1; written here, not by cmake, to keep the
# case fast), then the project's CMake files edited without a re-configure:
# CMakeLists.txt a minute after the reply, cmake/deps.cmake half a minute
# after. A generated file and one of CMake's own modules, newer still, are
# not the project's sources and are not named.
set -euo pipefail
out=$1
src=$out/src reply=$out/build/.cmake/api/v1/reply
mkdir -p "$src/cmake" "$reply" "$out/build/gen"
printf 'cmake_minimum_required(VERSION 3.18)\nproject(app CXX)\ninclude(cmake/deps.cmake)\nadd_executable(app main.cpp)\n' > "$src/CMakeLists.txt"
printf 'set(DEPS foo)\n' > "$src/cmake/deps.cmake"
echo 'set(X 1)' > "$out/build/gen/generated.cmake"
cat > "$reply/codemodel-v2-1.json" <<JSON
{"paths":{"source":"$src","build":"$out/build"},"configurations":[{"name":"","targets":[{"name":"app","jsonFile":"target-app.json"}]}]}
JSON
cat > "$reply/target-app.json" <<'JSON'
{"name":"app","type":"EXECUTABLE","nameOnDisk":"app","artifacts":[{"path":"app"}],"backtrace":1,
 "backtraceGraph":{"commands":["add_executable"],"files":["CMakeLists.txt"],"nodes":[{"file":0},{"command":0,"file":0,"line":4,"parent":0}]},
 "paths":{"source":".","build":"."},
 "link":{"language":"CXX","commandFragments":[{"fragment":"-O2","role":"flags"}]},
 "sources":[{"path":"main.cpp","compileGroupIndex":0,"backtrace":1}]}
JSON
cat > "$reply/toolchains-v1-1.json" <<JSON
{"toolchains":[{"language":"CXX","compiler":{"path":"$(command -v g++)"}}]}
JSON
cat > "$reply/cmakeFiles-v1-1.json" <<JSON
{"paths":{"source":"$src","build":"$out/build"},"inputs":[
 {"path":"CMakeLists.txt"},{"path":"cmake/deps.cmake"},
 {"path":"$out/build/gen/generated.cmake","isGenerated":true},
 {"path":"$out/build/gen/module.cmake","isCMake":true,"isExternal":true}]}
JSON
cp "$out/build/gen/generated.cmake" "$out/build/gen/module.cmake"
cat > "$reply/index-2026-01-01T00-00-00-0000.json" <<'JSON'
{"cmake":{"version":{"string":"3.25.1"},"generator":{"multiConfig":false}},"objects":[
 {"kind":"codemodel","version":{"major":2,"minor":4},"jsonFile":"codemodel-v2-1.json"},
 {"kind":"toolchains","version":{"major":1},"jsonFile":"toolchains-v1-1.json"},
 {"kind":"cmakeFiles","version":{"major":1},"jsonFile":"cmakeFiles-v1-1.json"}]}
JSON
now=$(date +%s)
touch -d "@$now" "$reply"/*.json
touch -d "@$((now + 60))" "$src/CMakeLists.txt"
touch -d "@$((now + 30))" "$src/cmake/deps.cmake"
touch -d "@$((now + 120))" "$out/build/gen/generated.cmake" "$out/build/gen/module.cmake"
