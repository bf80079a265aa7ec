# Toolchain file for Debian's aarch64 cross compiler
# (apt-get install g++-aarch64-linux-gnu binutils-aarch64-linux-gnu).
#
#   cmake -S project -B build -DCMAKE_TOOLCHAIN_FILE=project/aarch64.cmake
#
# Linker choice (-DET_LINKER=...) is handled by the project, not here: gold is
# found by the cross driver itself (/usr/aarch64-linux-gnu/bin/ld.gold); lld
# and mold are multi-target but the cross driver does not look for them on
# PATH, so CMakeLists.txt gives it a -B directory holding ld.lld / ld.mold.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
