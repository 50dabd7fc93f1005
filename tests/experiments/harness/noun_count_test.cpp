#include "experiments/harness/noun_count.h"

#include <gtest/gtest.h>

namespace recurlab::experiments {
namespace {

TEST(NounCount, OneIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(nounCount(1, "model"), "1 model");
  EXPECT_EQ(nounCount(0, "model"), "0 models");
  EXPECT_EQ(nounCount(3, "dataset"), "3 datasets");
  EXPECT_EQ(nounCount(11, "unit"), "11 units");
}

}  // namespace
}  // namespace recurlab::experiments
