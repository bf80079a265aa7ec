// The runtime's use of its thread pool copy.
extern "C" void* pthreadpool_create(unsigned threads);
extern "C" void* et_runtime_threadpool() { return pthreadpool_create(2); }
