/* A program that embeds Python: linking libpython is right for it. */
void Py_Initialize(void);
int main(void) { Py_Initialize(); return 0; }
