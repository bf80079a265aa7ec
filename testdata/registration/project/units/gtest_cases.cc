// GoogleTest: TEST() registers each test with MakeAndRegisterTestInfo.
#include <gtest/gtest.h>
TEST(Reg, One) { EXPECT_EQ(1, 1); }
TEST(Reg, Two) { EXPECT_EQ(2, 2); }
extern "C" int reg_gtest_anchor() { return 1; }
