/* prog.c: an executable that links libversioned.so.1. */
int foo(int);
int protected_fn(int);
extern __thread int tls_counter;

int main(void) { return foo(1) + protected_fn(2) + tls_counter == 0; }
