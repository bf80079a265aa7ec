/* An extension module that uses the pool. */
int pthreadpool_create(int n);
extern int pthreadpool_threads;
void *PyInit__ext(void) { pthreadpool_create(2); return (void *)&pthreadpool_threads; }
