/* backend_xnnpack_helpers.c: the second member of libreg.a. Its object
   name (backend_xnnpack_helpers.o) is longer than 15 characters, so GNU ar
   stores it in the "//" long-name table. */
int xnnpack_helper_round_up(int n, int q) { return (n + q - 1) / q * q; }
