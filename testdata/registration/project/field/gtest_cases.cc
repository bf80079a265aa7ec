// A test program on GoogleTest's own main (libgtest_main.a).
#include <gtest/gtest.h>
TEST(Field, Passes) { EXPECT_TRUE(true); }
