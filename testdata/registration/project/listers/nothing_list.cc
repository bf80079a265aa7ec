// Registers nothing and lists nothing: the units linked with it hand
// nothing to a registry, whether they are kept or lost.
int main() { return 0; }
