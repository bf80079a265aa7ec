/* gone.c: a library the consumer is linked against and which is then not
 * shipped, or is shipped under another SONAME. */
int gone_answer(void) { return 42; }
