// Lists the registered benchmarks (--benchmark_list_tests).
#include <benchmark/benchmark.h>
int main() {
  char arg0[] = "list", flag[] = "--benchmark_list_tests=true";
  char* argv[] = {arg0, flag, nullptr};
  int argc = 2;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
}
