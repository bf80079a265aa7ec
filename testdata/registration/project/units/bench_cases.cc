// Google Benchmark: BENCHMARK() hands a FunctionBenchmark to RegisterBenchmarkInternal.
#include <benchmark/benchmark.h>
static void BM_reg_a(benchmark::State& s) { for (auto _ : s) benchmark::DoNotOptimize(1); }
static void BM_reg_b(benchmark::State& s) { for (auto _ : s) benchmark::DoNotOptimize(2); }
BENCHMARK(BM_reg_a);
BENCHMARK(BM_reg_b);
extern "C" int reg_benchmark_anchor() { return 1; }
