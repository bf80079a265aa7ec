// The archive member consumers reference.
extern "C" int et_op_add(int a, int b) { return a + b; }
