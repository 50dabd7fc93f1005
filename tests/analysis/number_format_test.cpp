#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "analysis/number_format.h"

namespace recurlab::analysis {
namespace {

TEST(NumberFormat, CountsGroupThousandsWithCommas) {
  EXPECT_EQ(formatCount(0), "0");
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(formatCount(1000), "1,000");
  EXPECT_EQ(formatCount(1905302), "1,905,302");
  EXPECT_EQ(formatCount(-12345), "-12,345");
  EXPECT_EQ(formatCount(LLONG_MIN), "-9,223,372,036,854,775,808");
}

TEST(NumberFormat, FormatsNumbers) {
  EXPECT_EQ(formatNumber(0.333333), "0.333");
  EXPECT_EQ(formatNumber(12.3456), "12.3");
  EXPECT_EQ(formatNumber(1234.6, 3), "1235");
  EXPECT_EQ(formatNumber(2.5e-6), "2.50e-06");
  EXPECT_EQ(formatNumber(0), "0");
  EXPECT_EQ(formatNumber(std::nan("")), "nan");
  EXPECT_EQ(formatWithError(0.33412, 0.0023), "0.334 ± 0.002");
  EXPECT_EQ(formatWithError(0.33412, 0.0013), "0.3341 ± 0.0013");
  EXPECT_EQ(formatWithError(12.34, 0), "12.3");
  EXPECT_EQ(formatFixed(76.06), "76.1");
  EXPECT_EQ(formatFixed(NAN), "–");
}

}  // namespace
}  // namespace recurlab::analysis
