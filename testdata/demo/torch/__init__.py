# A stand-in for an installed torch package, for etlink's demo (see
# testdata/build.sh). It has no Python code: only its ELF files matter.
