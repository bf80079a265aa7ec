// A shared library that references the XNNPACK backend's anchor but is linked
// without it (shared libraries may keep undefined symbols). A consumer that
// links glue and the backend only needs the backend because of this
// shared-library reference: do linkers count it under --as-needed?
extern "C" int et_backend_xnn_anchor();

extern "C" int et_glue_touch() { return et_backend_xnn_anchor(); }
