// SHA-256 against the FIPS 180-4 examples (one block, two blocks, the empty message) and a
// file read in blocks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/sha256.h"
#include "tests/support/temp_root.h"

namespace recurlab {
namespace {

TEST(Sha256, EqualsTheStandardsExamples) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, OfAFileEqualsOfItsBytesAndNamesAMissingFile) {
  testing::TempRoot temp("recurlab_sha256");
  const std::string bytes(200000, 'a');  // several read blocks
  const auto path = (temp.root / "a.bin").string();
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(sha256OfFile(path), sha256Hex(bytes));
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  try {
    sha256OfFile((temp.root / "none").string());
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("none: cannot be read"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace recurlab
