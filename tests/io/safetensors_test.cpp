// zeroflow's safetensors reader and writer (io/safetensors.hpp) against the format's rules: the
// bytes it writes are re-derived here by hand (u64 header length, JSON header, raw tensors), and
// headers written by hand the way other writers lay them out are read back. Python's reference
// reader (PyPI safetensors) reads zeroflow's files in python/tests/test_model_file.py.
#include "zeroflow/io/safetensors.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
using zf::io::safetensors_content;

namespace {

std::string u64(std::uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}

std::string floats(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

/// A file from a header written as text and the data after it.
std::string file_of(const std::string& header, const std::string& data) { return u64(header.size()) + header + data; }

safetensors_content example() {
  safetensors_content c;
  c.metadata = {{"model", "light_vae"}, {"width", "4"}};
  c.tensors.push_back({"b.weight", "F32", {2, 2}, floats({1, 2, 3, 4})});
  c.tensors.push_back({"a.bias", "F32", {2}, floats({-1, 0.5F})});
  c.tensors.push_back({"steps", "I64", {}, u64(7)});
  return c;
}

std::string parse_message(const std::string& file) {
  try {
    (void)zf::io::from_safetensors(file);
  } catch (const zf::parse_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Safetensors, WritesTheFormatsLayout) {
  const std::string bytes = zf::io::to_safetensors(example());
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  ASSERT_EQ(n % 8, 0U);
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  EXPECT_EQ(header["__metadata__"]["width"], "4");
  EXPECT_EQ(header["b.weight"]["dtype"], "F32");
  EXPECT_EQ(header["b.weight"]["shape"], nlohmann::json::array({2, 2}));
  EXPECT_EQ(header["b.weight"]["data_offsets"], nlohmann::json::array({0, 16}));
  EXPECT_EQ(header["a.bias"]["data_offsets"], nlohmann::json::array({16, 24}));
  EXPECT_EQ(header["steps"]["shape"], nlohmann::json::array());
  EXPECT_EQ(bytes.substr(8 + n), floats({1, 2, 3, 4}) + floats({-1, 0.5F}) + u64(7));
}

TEST(Safetensors, RoundTripsAndReadsOtherLayouts) {
  const safetensors_content c = example();
  const safetensors_content back = zf::io::from_safetensors(zf::io::to_safetensors(c));
  EXPECT_EQ(back.metadata, c.metadata);
  ASSERT_EQ(back.tensors.size(), 3U);
  for (const auto& t : c.tensors) {
    const auto* b = back.find(t.name);
    ASSERT_NE(b, nullptr) << t.name;
    EXPECT_EQ(b->dtype, t.dtype);
    EXPECT_EQ(b->shape, t.shape);
    EXPECT_EQ(b->bytes, t.bytes);
  }
  // Another writer's layout: spaces, tensors in another byte order, no metadata, no padding.
  const std::string header =
      R"({ "x" : {"dtype":"F64","shape":[1],"data_offsets":[4,12]}, "y": {"dtype":"I32","shape":[1],"data_offsets":[0,4]} })";
  const std::string file = file_of(header, std::string("\x05\0\0\0", 4) + std::string(8, '\0'));
  const auto other = zf::io::from_safetensors(file);
  EXPECT_TRUE(other.metadata.empty());
  ASSERT_EQ(other.tensors.size(), 2U);
  EXPECT_EQ(other.tensors[0].name, "y");  // in the order of their bytes
  EXPECT_EQ(other.tensors[1].name, "x");
  // Empty tensors take no bytes and are allowed.
  EXPECT_EQ(parse_message(file_of(R"({"e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]}})", "")), "");
}

TEST(Safetensors, TheChecksumFollowsTheContentNotTheLayout) {
  const safetensors_content c = example();
  const std::string sum = zf::io::content_checksum(c);
  EXPECT_EQ(sum.size(), 8U + 16U);
  EXPECT_EQ(sum.rfind("fnv1a64:", 0), 0U);
  safetensors_content reordered = c;
  std::swap(reordered.tensors[0], reordered.tensors[2]);
  reordered.metadata["checksum"] = "anything";  // the checksum's own entry is left out
  EXPECT_EQ(zf::io::content_checksum(reordered), sum);
  auto changed = [&](auto change) {
    safetensors_content copy = c;
    change(copy);
    return zf::io::content_checksum(copy);
  };
  EXPECT_NE(changed([](auto& x) { x.metadata["width"] = "5"; }), sum);
  EXPECT_NE(changed([](auto& x) { x.metadata["extra"] = ""; }), sum);
  EXPECT_NE(changed([](auto& x) { x.tensors[0].bytes[3] ^= 1; }), sum);
  EXPECT_NE(changed([](auto& x) { x.tensors[0].shape = {4}; }), sum);
  EXPECT_NE(changed([](auto& x) { x.tensors[1].name = "a.biaz"; }), sum);
  EXPECT_NE(changed([](auto& x) { x.tensors[0].dtype = "I32"; }), sum);
  // Field boundaries count: moving a character from a key to its value changes the sum.
  EXPECT_NE(changed([](auto& x) { x.metadata = {{"modellight_vae", ""}, {"width", "4"}}; }), sum);
}

TEST(Safetensors, RefusesWhatTheWriterCannotWrite) {
  auto refused = [](auto change) {
    safetensors_content c = example();
    change(c);
    EXPECT_THROW((void)zf::io::to_safetensors(c), zf::invalid_argument);
  };
  refused([](auto& c) { c.tensors[0].dtype = "F31"; });
  refused([](auto& c) { c.tensors[0].shape = {3, 2}; });
  refused([](auto& c) { c.tensors[0].shape = {-2, -2}; });
  refused([](auto& c) { c.tensors[1].name = c.tensors[0].name; });
  refused([](auto& c) { c.tensors[1].name = "__metadata__"; });
  refused([](auto& c) { c.tensors[1].name = ""; });
}

TEST(Safetensors, RefusesDamagedAndHostileFiles) {
  const std::string good = zf::io::to_safetensors(example());
  EXPECT_EQ(parse_message(good), "");
  auto says = [](const std::string& file, const std::string& part) {
    const std::string message = parse_message(file);
    EXPECT_NE(message.find(part), std::string::npos) << "wanted '" << part << "', got '" << message << "'";
  };
  says("", "too short");
  says(u64(1000) + "{}", "does not fit");
  says(u64(~0ULL) + "{}", "does not fit");
  says(file_of("[1,2]", ""), "not a JSON object");
  says(file_of("{\"a\":", ""), "not valid JSON");
  says(file_of(R"({"a":{"dtype":"F32","shape":[1]}})", "abcd"), "lacks dtype, shape or data_offsets");
  says(file_of(R"({"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}})", "a"), "unknown dtype 'Q8'");
  says(file_of(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "abcd"), "whole number >= 0");
  says(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "abcd"), "do not hold its shape");
  says(file_of(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,4]}})", "abcd"),
       "do not hold its shape");
  says(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", "abcd"), "of data that has 4");
  says(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", "abcd"), "lies at bytes 4 to 0");
  says(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", "abcdef"), "2 bytes after its last");
  says(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", "abcdefgh"), "(a gap before it)");
  says(
      file_of(
          R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
          "abcd"),
      "overlaps another");
  says(file_of(R"({"__metadata__":{"n":3}})", ""), "entry 'n' is not a string");
  says(file_of(R"({"__metadata__":[]})", ""), "__metadata__ is not a JSON object");
}

using zf::test::message_of;

TEST(SafetensorsValues, TensorsOfEachTypeRoundTripThroughTheirBytes) {
  const std::vector<float> f{1.5F, -2.0F, 3.25F, 0.0F, 7.0F, -0.5F};
  const std::vector<double> d{0.1, -1e300};
  const std::vector<std::int64_t> i{-3, std::int64_t{1} << 40};
  safetensors_content c;
  c.tensors.push_back(zf::io::make_safetensor("f", {2, 3}, f.data()));
  c.tensors.push_back(zf::io::make_safetensor("d", {2}, d.data()));
  c.tensors.push_back(zf::io::make_safetensor("i", {1, 2}, i.data()));
  // The writer's own format checks: each tensor's bytes hold its shape in its dtype.
  const safetensors_content back = zf::io::from_safetensors(zf::io::to_safetensors(c));
  EXPECT_EQ(back.find("f")->dtype, "F32");
  EXPECT_EQ(back.find("d")->dtype, "F64");
  EXPECT_EQ(back.find("i")->dtype, "I64");
  EXPECT_EQ(zf::io::safetensor_values<float>(back, "f", {2, 3}), f);
  EXPECT_EQ(zf::io::safetensor_values<double>(back, "d", {2}), d);
  EXPECT_EQ(zf::io::safetensor_values<std::int64_t>(back, "i", {1, 2}), i);
  EXPECT_EQ(back.find("f")->bytes.substr(0, 8), floats({1.5F, -2.0F}));
}

TEST(SafetensorsValues, AnotherShapeOrTypeOrNoTensorIsRefusedByName) {
  const std::vector<float> f{1, 2, 3, 4, 5, 6};
  safetensors_content c;
  c.tensors.push_back(zf::io::make_safetensor("w", {2, 3}, f.data()));
  EXPECT_EQ(message_of([&] {
              (void)zf::io::safetensor_values<float>(c, "w", {3, 2});
            }),
            "its tensor w is not float32 of shape 3×2 (it is float32 of shape 2×3)");
  EXPECT_EQ(message_of([&] {
              (void)zf::io::safetensor_values<double>(c, "w", {2, 3});
            }),
            "its tensor w is not float64 of shape 2×3 (it is float32 of shape 2×3)");
  EXPECT_EQ(message_of([&] { (void)zf::io::safetensor_values<float>(c, "v", {2, 3}); }), "it lacks the tensor v");
  // A tensor made in memory whose bytes do not hold its shape is refused, not read past.
  c.tensors[0].bytes.resize(9);
  EXPECT_EQ(message_of([&] {
              (void)zf::io::safetensor_values<float>(c, "w", {2, 3});
            }),
            "its tensor w has 9 bytes, not those of float32 of shape 2×3");
}

TEST(SafetensorsValues, MakingATensorChecksItsShape) {
  const zf::io::safetensor empty = zf::io::make_safetensor<float>("none", {0, 4}, nullptr);
  EXPECT_TRUE(empty.bytes.empty());
  safetensors_content c;
  c.tensors.push_back(empty);
  EXPECT_TRUE(
      zf::io::safetensor_values<float>(zf::io::from_safetensors(zf::io::to_safetensors(c)), "none", {0, 4}).empty());
  const float one = 1;
  EXPECT_THROW((void)zf::io::make_safetensor<float>("neg", {-1}, &one), zf::invalid_argument);
  EXPECT_THROW((void)zf::io::make_safetensor<float>("huge", {std::int64_t{1} << 62, 4}, &one), zf::invalid_argument);
  EXPECT_THROW((void)zf::io::make_safetensor("odd", "Q8", {1}, &one), zf::invalid_argument);
}

TEST(SafetensorsMetadata, NumbersAreReadWholeOrRefused) {
  safetensors_content c;
  c.metadata = {{"n", "42"},   {"neg", "-7"},  {"big", "18446744073709551615"}, {"x", "0.25"}, {"tail", "12x"},
                {"empty", ""}, {"space", " 3"}};
  EXPECT_EQ(zf::io::metadata_number<int>(c, "n"), 42);
  EXPECT_EQ(zf::io::metadata_number<std::int64_t>(c, "neg"), -7);
  EXPECT_EQ(zf::io::metadata_number<std::uint64_t>(c, "big"), 18446744073709551615ULL);
  EXPECT_EQ(zf::io::metadata_number<double>(c, "x"), 0.25);
  EXPECT_EQ(zf::io::metadata_number<float>(c, "x"), 0.25F);
  // What "%.17g" writes reads back as the same double.
  for (const double v : {360.5, 1000.0 / 3.0, 2.5e-05, 1e+300, 0.1}) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    c.metadata["g"] = text;
    EXPECT_EQ(zf::io::metadata_number<double>(c, "g"), v) << text;
  }
  EXPECT_EQ(message_of([&] { (void)zf::io::metadata_number<int>(c, "tail"); }),
            "its metadata entry tail is '12x', not a whole number");
  EXPECT_EQ(message_of([&] { (void)zf::io::metadata_number<double>(c, "tail"); }),
            "its metadata entry tail is '12x', not a number");
  EXPECT_THROW((void)zf::io::metadata_number<std::uint64_t>(c, "neg"), zf::parse_error);
  EXPECT_THROW((void)zf::io::metadata_number<int>(c, "big"), zf::parse_error);  // out of range
  EXPECT_THROW((void)zf::io::metadata_number<int>(c, "empty"), zf::parse_error);
  EXPECT_THROW((void)zf::io::metadata_number<int>(c, "space"), zf::parse_error);
  EXPECT_EQ(message_of([&] { (void)zf::io::metadata_entry(c, "absent"); }), "its metadata lacks the entry absent");
}

TEST(SafetensorsSeal, ASealedFileHoldsItsChecksumUntilAValueChanges) {
  safetensors_content c = example();
  EXPECT_FALSE(zf::io::checksum_holds(c));  // none written yet
  const std::string bytes = zf::io::sealed_safetensors(c);
  safetensors_content back = zf::io::from_safetensors(bytes);
  EXPECT_EQ(back.metadata.at(std::string(zf::io::checksum_key)), zf::io::content_checksum(c));
  EXPECT_TRUE(zf::io::checksum_holds(back));
  // Sealing again replaces the checksum rather than hashing the old one in.
  EXPECT_EQ(zf::io::sealed_safetensors(back), bytes);
  back.tensors[0].bytes[0] ^= 1;
  EXPECT_FALSE(zf::io::checksum_holds(back));
}

TEST(SafetensorsSniff, TellsASafetensorsFileFromOtherBytes) {
  const std::string good = zf::io::to_safetensors(example());
  EXPECT_TRUE(zf::io::looks_like_safetensors(good));
  EXPECT_FALSE(zf::io::looks_like_safetensors(std::string("PK\x03\x04", 4) + std::string(60, '\0')));  // a zip
  EXPECT_FALSE(zf::io::looks_like_safetensors(good.substr(0, 9)));                                     // too short
  EXPECT_FALSE(zf::io::looks_like_safetensors(u64(good.size()) + good.substr(8)));  // header longer than the file
  EXPECT_FALSE(zf::io::looks_like_safetensors(u64(1) + "{}"));                      // a header too short to be one
  std::string not_json = good;
  not_json[8] = '[';
  EXPECT_FALSE(zf::io::looks_like_safetensors(not_json));
}
