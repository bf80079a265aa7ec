# The wrapper real projects use to declare a backend: the add_library call
# etlink has to see through.
#
#   et_add_backend(<name> <source>... [RUNTIME <runtime target>])
#
# Builds lib et_<name>.so from the sources, linked PRIVATE to the runtime
# target (default: the shared `runtime`).
function(et_add_backend name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "RUNTIME" "")
  if(NOT ARG_RUNTIME)
    set(ARG_RUNTIME runtime)
  endif()
  add_library(${name} SHARED ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES OUTPUT_NAME et_${name})
  target_link_libraries(${name} PRIVATE ${ARG_RUNTIME})
endfunction()
