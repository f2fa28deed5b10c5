// placeholder replaced below
#include <gtest/gtest.h>
TEST(BookLeaf, Placeholder) { SUCCEED(); }
