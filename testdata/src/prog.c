/* prog.c: an executable that links libversioned.so.1. Reading the library's
 * exported_table from a non-PIC access makes the linker give the executable
 * a copy of it (R_X86_64_COPY, R_AARCH64_COPY): the one instance of the
 * variable, not a second definition. */
int foo(int);
int protected_fn(int);
extern __thread int tls_counter;
extern int exported_table[4];

int main(void) { return foo(1) + protected_fn(2) + tls_counter + exported_table[1] == 0; }
