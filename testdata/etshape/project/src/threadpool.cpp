// pthreadpool, bundled into both the runtime and the backend (a duplicate
// within the wheel, as ExecuTorch's split first shipped it).
extern "C" void* pthreadpool_create(unsigned threads) {
  static unsigned last;
  last = threads;
  return &last;
}
