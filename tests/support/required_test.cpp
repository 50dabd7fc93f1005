// RECURLAB_REQUIRE_OR_SKIP under RECURLAB_REQUIRE_ALL_TESTS=1 (.ci/run): a missing dataset fails.
#include "tests/support/required.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace recurlab::testing {
namespace {

void needsAMissingDataset() {
  RECURLAB_REQUIRE_OR_SKIP("no data/nothing (scripts/get-data.sh nothing)");
}
void needsWhatIsThere() { RECURLAB_REQUIRE_OR_SKIP(""); }

// Sets RECURLAB_REQUIRE_ALL_TESTS for the scope, then puts back what was there.
class RequireAllTests {
 public:
  explicit RequireAllTests(const char* value) {
    if (const char* old = std::getenv(kName)) old_ = old;
    ::setenv(kName, value, 1);
  }
  ~RequireAllTests() {
    if (old_) ::setenv(kName, old_->c_str(), 1);
    else ::unsetenv(kName);
  }

 private:
  static constexpr const char* kName = "RECURLAB_REQUIRE_ALL_TESTS";
  std::optional<std::string> old_;
};

TEST(Required, AMissingDatasetFailsTheTestUnderRequireAllTests) {
  RequireAllTests on("1");
  EXPECT_TRUE(allTestsRequired());
  EXPECT_FATAL_FAILURE(needsAMissingDataset(), "cannot run: no data/nothing");
}

TEST(Required, WhatIsThereNeitherFailsNorSkips) {
  RequireAllTests on("1");
  needsWhatIsThere();
  EXPECT_FALSE(IsSkipped());
  RequireAllTests off("0");
  EXPECT_FALSE(allTestsRequired());
}

}  // namespace
}  // namespace recurlab::testing
