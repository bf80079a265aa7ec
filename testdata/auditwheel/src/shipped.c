int outer_value(const char *s);
int shipped_value(void) { return outer_value("shipped"); }
