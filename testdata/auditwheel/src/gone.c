int gone_value(void) { return 7; }
