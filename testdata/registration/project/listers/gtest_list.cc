// Lists the tests GoogleTest's registry holds.
#include <cstdio>
#include <gtest/gtest.h>
int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  auto* u = testing::UnitTest::GetInstance();
  for (int i = 0; i < u->total_test_suite_count(); i++) {
    auto* s = u->GetTestSuite(i);
    for (int j = 0; j < s->total_test_count(); j++) std::printf("%s.%s\n", s->name(), s->GetTestInfo(j)->name());
  }
}
