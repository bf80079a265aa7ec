// slib.cc: an extension module linked with -static-libstdc++ (and
// -static-libgcc), default visibility: the part of libstdc++ it uses is
// inside it and exported, beside the system libstdc++.so.6 torch loads.
#include <Python.h>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

static PyObject *hello(PyObject *, PyObject *) {
	std::ostringstream os;
	os << "hi " << 42 << std::string("x");
	std::map<std::string, int> m;
	m["a"] = 1;
	try {
		throw std::runtime_error("e");
	} catch (std::exception &e) {
		os << e.what();
	}
	return PyUnicode_FromString(os.str().c_str());
}

static PyMethodDef methods[] = {{"hello", hello, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_slib", nullptr, -1, methods};
PyMODINIT_FUNC PyInit__slib(void) { return PyModule_Create(&mod); }
