int helper_value(void) { return 42; }
