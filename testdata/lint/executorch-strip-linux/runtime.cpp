int executorch_runtime() { return 1; }
