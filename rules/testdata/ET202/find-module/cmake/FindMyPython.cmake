# A project's own find module (the shape of pybind11's FindPythonLibsNew).
find_package(Python3 COMPONENTS Development REQUIRED)
set(MYPYTHON_LIBRARIES Python3::Python)
