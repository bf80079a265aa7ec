// A kernel library's operator member: what consumers call.
int op_add(int a, int b) { return a + b; }
