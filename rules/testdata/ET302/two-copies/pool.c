/* A thread pool bundled into two libraries of one wheel. */
int pthreadpool_threads = 4;
int pthreadpool_create(int n) { pthreadpool_threads = n; return 0; }
int unused_helper(void) { return 7; }
