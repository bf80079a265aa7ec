include_guard(GLOBAL)

#[[
  add_backend_library(name [SHARED_LIB] SRCS src... DEPS dep...)
  A backend library whose registrations must survive the link.
]]
function(add_backend_library name)
  cmake_parse_arguments(ARG "SHARED_LIB" "" "SRCS;DEPS" ${ARGN})
  if(ARG_SHARED_LIB)
    set(type SHARED)
  else()
    set(type STATIC)
  endif()
  add_library(${name} ${type} ${ARG_SRCS})
  target_link_libraries(${name}
    PUBLIC ${ARG_DEPS}
    PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,demo_registry>")
endfunction()

macro(demo_link_python target)
  target_link_libraries(${target} PRIVATE ${ARGN})
endmacro()
