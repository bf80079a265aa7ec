#include <Python.h>

int main() {
  Py_Initialize();
  int rc = PyRun_SimpleString("print('embedded')");
  Py_Finalize();
  return rc;
}
