// The safetensors reader and writer: round trips of every dtype and the metadata, the byte
// layout the format documents, and malformed files refused with errors naming the file and
// the tensor.
#include "experiments/weights/safetensors_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "tests/support/temp_root.h"

namespace recurlab::experiments::weights {
namespace {

SafetensorsTensor tensorOf(const std::string& name, SafetensorsDtype dtype,
                           std::vector<int64_t> shape) {
  SafetensorsTensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.resize(static_cast<size_t>(t.numel()) * dtypeSize(dtype));
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<char>(i * 7 + name.size());
  return t;
}

std::string lengthBytes(uint64_t n) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return bytes;
}

// A file made by hand: the 8-byte length, the header text as given, then `data`.
std::string handMade(const std::string& header, const std::string& data) {
  return lengthBytes(header.size()) + header + data;
}

// The message of the error parsing `bytes` as "f.safetensors" throws, or "" if none.
std::string parseError(const std::string& bytes) {
  try {
    parseSafetensors(bytes, "f.safetensors");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(SafetensorsFileTest, EveryDtypeAndTheMetadataRoundTrip) {
  SafetensorsContents c;
  c.metadata = {{"format", "pt"}, {"note", "x"}};
  c.tensors = {tensorOf("a.f64", SafetensorsDtype::F64, {2, 3}),
               tensorOf("b.f32", SafetensorsDtype::F32, {5}),
               tensorOf("c.f16", SafetensorsDtype::F16, {3, 1}),
               tensorOf("d.bf16", SafetensorsDtype::BF16, {1}),
               tensorOf("e.i64", SafetensorsDtype::I64, {2}),
               tensorOf("f.i32", SafetensorsDtype::I32, {}),
               tensorOf("g.u8", SafetensorsDtype::U8, {0, 4}),
               tensorOf("h.bool", SafetensorsDtype::BOOL, {3})};
  testing::TempRoot temp("safetensors_round_trip");
  const std::string path = (temp.root / "w.safetensors").string();
  writeSafetensors(path, c);
  const auto back = readSafetensors(path);
  EXPECT_EQ(back.metadata, c.metadata);
  ASSERT_EQ(back.tensors.size(), c.tensors.size());
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    EXPECT_EQ(back.tensors[i].name, c.tensors[i].name);
    EXPECT_EQ(back.tensors[i].dtype, c.tensors[i].dtype) << c.tensors[i].name;
    EXPECT_EQ(back.tensors[i].shape, c.tensors[i].shape) << c.tensors[i].name;
    EXPECT_EQ(back.tensors[i].data, c.tensors[i].data) << c.tensors[i].name;
  }
  ASSERT_NE(back.find("e.i64"), nullptr);
  EXPECT_EQ(back.find("missing"), nullptr);
}

TEST(SafetensorsFileTest, LayoutIsTheDocumentedOne) {
  SafetensorsContents c;
  SafetensorsTensor t;
  t.name = "w";
  t.dtype = SafetensorsDtype::F32;
  t.shape = {2};
  const float values[2] = {1.5f, -2.0f};
  t.data.assign(reinterpret_cast<const char*>(values), sizeof values);
  c.tensors.push_back(t);
  const std::string bytes = serializeSafetensors(c);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(n % 8, 0u) << "the data starts 8-byte aligned";
  ASSERT_EQ(bytes.size(), 8 + n + 8);
  const std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.substr(0, header.find_last_not_of(' ') + 1),
            R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})");
  // 1.5f = 0x3fc00000, little-endian.
  EXPECT_EQ(bytes.substr(8 + n, 4), std::string("\x00\x00\xc0\x3f", 4));
}

TEST(SafetensorsFileTest, AFileWrittenByHandReads) {
  const std::string header =
      R"({"__metadata__":{"k":"v"},"b":{"dtype":"I32","shape":[1],"data_offsets":[2,6]},)"
      R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  const auto c = parseSafetensors(handMade(header, std::string("\x01\x02\x05\x00\x00\x00", 6)),
                                  "f.safetensors");
  ASSERT_EQ(c.tensors.size(), 2u);
  EXPECT_EQ(c.tensors[0].name, "a") << "tensors come in the order of their data";
  EXPECT_EQ(c.tensors[1].data, std::string("\x05\x00\x00\x00", 4));
  EXPECT_EQ(c.metadata.at("k"), "v");
}

TEST(SafetensorsFileTest, TruncatedFilesAreRefused) {
  SafetensorsContents c;
  c.tensors = {tensorOf("layer.weight", SafetensorsDtype::F32, {4, 4})};
  const std::string bytes = serializeSafetensors(c);
  EXPECT_NE(parseError(bytes.substr(0, 5)).find("f.safetensors: not a valid safetensors file: it "
                                                "has 5 bytes, fewer than the 8"),
            std::string::npos)
      << parseError(bytes.substr(0, 5));
  EXPECT_NE(parseError(bytes.substr(0, 20)).find("runs past the end of the file"),
            std::string::npos)
      << parseError(bytes.substr(0, 20));
  const std::string cut = parseError(bytes.substr(0, bytes.size() - 3));
  EXPECT_NE(cut.find("tensor 'layer.weight': data_offsets [0, 64] run past the end of the data "
                     "(61 bytes"),
            std::string::npos)
      << cut;
  EXPECT_NE(parseError(lengthBytes(200'000'000) + "{}")
                .find("exceeds the format's limit"),
            std::string::npos);
}

TEST(SafetensorsFileTest, BadHeadersAreRefused) {
  EXPECT_NE(parseError(handMade("{\"a\": {\"dtype\": \"F32\",", "")).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(parseError(handMade("[1, 2]", "")).find("does not start with '{'"),
            std::string::npos);
  EXPECT_NE(parseError(handMade(R"({"a":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}})", "x"))
                .find("tensor 'a': dtype \"F8\" is not one of"),
            std::string::npos);
  EXPECT_NE(parseError(handMade(R"({"a":{"dtype":"F32","data_offsets":[0,4]}})", "xxxx"))
                .find("tensor 'a': no \"shape\""),
            std::string::npos);
  EXPECT_NE(parseError(handMade(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
                                "xxxx"))
                .find("shape must hold non-negative integers"),
            std::string::npos);
  EXPECT_NE(parseError(handMade(R"({"__metadata__":{"k":1}})", "")).find("value of 'k' must be "
                                                                         "a string"),
            std::string::npos);
}

TEST(SafetensorsFileTest, OffsetsMustTileTheDataExactly) {
  const auto entry = [](const std::string& name, int begin, int end, int elements) {
    return "\"" + name + R"(":{"dtype":"F32","shape":[)" + std::to_string(elements) +
           R"(],"data_offsets":[)" + std::to_string(begin) + "," + std::to_string(end) + "]}";
  };
  const std::string data(16, 'x');
  const std::string size_mismatch =
      parseError(handMade("{" + entry("a", 0, 16, 3) + "}", data));
  EXPECT_NE(size_mismatch.find("tensor 'a': data_offsets [0,16] span 16 bytes, but shape [3] of "
                               "F32 needs 12"),
            std::string::npos)
      << size_mismatch;
  const std::string overlap =
      parseError(handMade("{" + entry("a", 0, 8, 2) + "," + entry("b", 4, 16, 3) + "}", data));
  EXPECT_NE(overlap.find("tensor 'b': data_offsets [4, 16] overlap tensor 'a' (which ends at 8)"),
            std::string::npos)
      << overlap;
  const std::string gap =
      parseError(handMade("{" + entry("a", 0, 4, 1) + "," + entry("b", 8, 16, 2) + "}", data));
  EXPECT_NE(gap.find("tensor 'b': data_offsets begin at 8, leaving a gap after tensor 'a'"),
            std::string::npos)
      << gap;
  const std::string out_of_range = parseError(handMade("{" + entry("a", 12, 20, 2) + "}", data));
  EXPECT_NE(out_of_range.find("tensor 'a': data_offsets [12, 20] run past the end of the data"),
            std::string::npos)
      << out_of_range;
  const std::string trailing = parseError(handMade("{" + entry("a", 0, 8, 2) + "}", data));
  EXPECT_NE(trailing.find("8 bytes after the last tensor's data belong to no tensor"),
            std::string::npos)
      << trailing;
  EXPECT_EQ(parseError(handMade("{" + entry("a", 0, 8, 2) + "," + entry("b", 8, 16, 2) + "}",
                                data)),
            "");
}

TEST(SafetensorsFileTest, AMissingFileIsNamed) {
  try {
    readSafetensors("/nonexistent/w.safetensors");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/w.safetensors: cannot open"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace recurlab::experiments::weights
