# Found through CMAKE_MODULE_PATH (eclipse-ecal's helper_functions).
function(add_python_module name)
  Python_add_library(${name} MODULE ${name}.cpp)
  target_link_libraries(${name} PRIVATE Python::Python) # want ET202 error "_helper links Python::Python"
endfunction()
