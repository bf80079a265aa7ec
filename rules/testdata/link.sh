# link.sh OUT CMD...: runs a compile or link command in OUT and records it in
# OUT/build.log, as make VERBOSE=1 would show it; sourced by the ET1xx cases.
run() { (cd "$out" && echo "$*" >> build.log && "$@"); }
