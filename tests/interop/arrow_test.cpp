// Arrow C Data / Device / Stream Interface: export and import, lifetimes, moved children, bits,
// nulls and misuse.
#include "zeroflow/interop/arrow.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace ar = zeroflow::arrow;

namespace {

/// A host array of `values` whose buffer release is counted.
template <class T>
zf::array counted_array(const std::vector<T>& values, zf::shape_t shape, std::atomic<int>* releases,
                        zf::dtype type = zf::dtype_of<T>()) {
  const std::size_t bytes = values.size() * sizeof(T);
  char* memory = new char[bytes == 0 ? 1 : bytes];
  if (bytes != 0) std::memcpy(memory, values.data(), bytes);
  auto owner = zf::buffer::adopt(memory, bytes, zf::cpu_device, [releases](void* p, std::size_t) {
    delete[] static_cast<char*>(p);
    ++*releases;
  });
  return zf::array(owner, type, std::move(shape));
}

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> out(n);
  for (auto& v : out) v = static_cast<T>(std::uniform_real_distribution<double>(-1e3, 1e3)(rng));
  return out;
}

/// A foreign producer's primitive array: owns its buffers and counts releases.
struct foreign_array {
  ar::ArrowArray array{};
  const void* buffers[2] = {nullptr, nullptr};
  int releases = 0;

  foreign_array(const void* validity, const void* values, std::int64_t length, std::int64_t offset,
                std::int64_t null_count) {
    buffers[0] = validity;
    buffers[1] = values;
    array.length = length;
    array.null_count = null_count;
    array.offset = offset;
    array.n_buffers = 2;
    array.n_children = 0;
    array.buffers = buffers;
    array.children = nullptr;
    array.dictionary = nullptr;
    array.private_data = this;
    array.release = [](ar::ArrowArray* self) {
      ++static_cast<foreign_array*>(self->private_data)->releases;
      self->release = nullptr;
    };
  }
};

ar::ArrowSchema primitive_schema(const char* format, const char* name = "x") {
  ar::ArrowSchema s{};
  s.format = format;
  s.name = name;
  s.release = [](ar::ArrowSchema* self) { self->release = nullptr; };
  return s;
}

template <class T>
std::vector<T> values_of(const zf::array& a) {
  auto s = a.span<const T>();
  return {s.begin(), s.end()};
}

}  // namespace

TEST(Arrow, FormatOfEveryPrimitiveDtype) {
  const std::vector<std::pair<zf::dtype, std::string>> expected = {
      {zf::int8, "c"},    {zf::int16, "s"},   {zf::int32, "i"},   {zf::int64, "l"},
      {zf::uint8, "C"},   {zf::uint16, "S"},  {zf::uint32, "I"},  {zf::uint64, "L"},
      {zf::float16, "e"}, {zf::float32, "f"}, {zf::float64, "g"}, {zf::bool8, "b"}};
  for (const auto& [type, format] : expected) {
    zf::array a = zf::zeros({3}, type);
    ar::ArrowSchema s{};
    zf::export_arrow_schema(a, "col", &s);
    EXPECT_EQ(std::string(s.format), format) << type.name();
    EXPECT_EQ(std::string(s.name), "col");
    EXPECT_EQ(s.n_children, 0);
    EXPECT_EQ(s.flags, 0);  // not nullable: zeroflow arrays hold no nulls
    s.release(&s);
    EXPECT_EQ(s.release, nullptr);
  }
}

TEST(Arrow, Float32ExportIsAViewThatKeepsTheBufferAlive) {
  std::atomic<int> releases{0};
  const auto values = random_values<float>(1000, 1);
  ar::ArrowArray out{};
  const void* data = nullptr;
  {
    zf::array a = counted_array(values, {1000}, &releases);
    data = a.data();
    zf::export_arrow_array(a, &out);
  }
  EXPECT_EQ(releases, 0);  // the export holds the buffer
  EXPECT_EQ(out.length, 1000);
  EXPECT_EQ(out.null_count, 0);
  EXPECT_EQ(out.offset, 0);
  ASSERT_EQ(out.n_buffers, 2);
  EXPECT_EQ(out.buffers[0], nullptr);
  EXPECT_EQ(out.buffers[1], data);
  EXPECT_EQ(std::memcmp(out.buffers[1], values.data(), values.size() * sizeof(float)), 0);
  out.release(&out);
  EXPECT_EQ(out.release, nullptr);
  EXPECT_EQ(releases, 1);
}

TEST(Arrow, RoundTripKeepsThePointerAndReleasesOnce) {
  std::atomic<int> releases{0};
  const auto values = random_values<double>(257, 2);
  zf::array back;
  {
    zf::array a = counted_array(values, {257}, &releases);
    ar::ArrowSchema s{};
    ar::ArrowArray arr{};
    zf::export_arrow_schema(a, "v", &s);
    zf::export_arrow_array(a, &arr);
    back = zf::import_arrow_array(s, &arr);
    EXPECT_EQ(arr.release, nullptr);  // moved into the import
    EXPECT_EQ(back.data(), a.data());
    s.release(&s);
  }
  EXPECT_EQ(releases, 0);
  EXPECT_EQ(back.type(), zf::float64);
  EXPECT_EQ(values_of<double>(back), values);
  back = zf::array{};
  EXPECT_EQ(releases, 1);
}

TEST(Arrow, ForeignOffsetIsAppliedAndReleaseRunsWhenTheLastViewGoes) {
  std::vector<std::int64_t> values = {10, 11, 12, 13, 14, 15};
  foreign_array f(nullptr, values.data(), 3, 2, 0);
  auto schema = primitive_schema("l");
  zf::array a = zf::import_arrow_array(schema, &f.array);
  EXPECT_EQ(values_of<std::int64_t>(a), (std::vector<std::int64_t>{12, 13, 14}));
  EXPECT_EQ(a.data(), values.data() + 2);
  zf::array view = a.slice(0, 1, 3);
  a = zf::array{};
  EXPECT_EQ(f.releases, 0);
  view = zf::array{};
  EXPECT_EQ(f.releases, 1);
}

TEST(Arrow, BoolExportPacksBitsLeastSignificantFirst) {
  std::atomic<int> releases{0};
  std::vector<std::uint8_t> values(19);
  std::mt19937 rng(3);
  for (auto& v : values) v = static_cast<std::uint8_t>(rng() % 3);  // 2 counts as true too
  zf::array a = counted_array(values, {19}, &releases, zf::bool8);
  EXPECT_TRUE(zf::arrow_export_copies(a));
  ar::ArrowArray out{};
  zf::export_arrow_array(a, &out);
  ASSERT_EQ(out.length, 19);
  const auto* bits = static_cast<const std::uint8_t*>(out.buffers[1]);
  ASSERT_NE(static_cast<const void*>(bits), a.data());  // packed: a copy
  for (int i = 0; i < 19; ++i) EXPECT_EQ(((bits[i / 8] >> (i % 8)) & 1) != 0, values[i] != 0) << i;
  EXPECT_EQ(bits[2] >> 3, 0);  // padding bits are zero
  out.release(&out);
}

TEST(Arrow, BoolImportUnpacksWithABitOffset) {
  // bits 0b10110100, 0b00000011 -> from bit 2: 1,0,1,1,0,1,1,1,0
  std::vector<std::uint8_t> bits = {0b10110100, 0b00000011};
  foreign_array f(nullptr, bits.data(), 8, 2, 0);
  auto schema = primitive_schema("b");
  EXPECT_TRUE(zf::arrow_import_copies(schema));
  zf::array a = zf::import_arrow_array(schema, &f.array);
  EXPECT_EQ(a.type(), zf::bool8);
  const auto* bytes = static_cast<const std::uint8_t*>(a.data());
  EXPECT_EQ(std::vector<std::uint8_t>(bytes, bytes + a.size()), (std::vector<std::uint8_t>{1, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(f.releases, 1);  // unpacked: the producer's data is no longer needed
}

TEST(Arrow, RowsExportAsFixedSizeListsAndComeBack) {
  std::atomic<int> releases{0};
  const auto values = random_values<float>(4 * 8, 4);
  zf::array rows = counted_array(values, {4, 8}, &releases);
  ar::ArrowSchema s{};
  ar::ArrowArray arr{};
  zf::export_arrow_schema(rows, "rows", &s);
  zf::export_arrow_array(rows, &arr);
  EXPECT_EQ(std::string(s.format), "+w:8");
  ASSERT_EQ(s.n_children, 1);
  EXPECT_EQ(std::string(s.children[0]->format), "f");
  EXPECT_EQ(arr.length, 4);
  ASSERT_EQ(arr.n_children, 1);
  EXPECT_EQ(arr.children[0]->length, 32);
  EXPECT_EQ(arr.children[0]->buffers[1], rows.data());
  zf::array back = zf::import_arrow_array(s, &arr);
  EXPECT_EQ(back.shape(), (zf::shape_t{4, 8}));
  EXPECT_EQ(back.data(), rows.data());
  EXPECT_EQ(values_of<float>(back), values);
  s.release(&s);
}

TEST(Arrow, RefusesWhatArrowCannotHold) {
  ar::ArrowSchema s{};
  ar::ArrowArray arr{};
  zf::array base = zf::zeros({4, 6}, zf::float32);
  EXPECT_THROW(zf::export_arrow_array(base.slice(1, 0, 6, 2), &arr), zf::invalid_argument);    // strided
  EXPECT_THROW(zf::export_arrow_array(base.slice(0, 3, -1, -1), &arr), zf::invalid_argument);  // negative stride
  EXPECT_THROW(zf::export_arrow_schema(zf::zeros({3}, zf::bfloat16), "b", &s), zf::invalid_argument);
  EXPECT_THROW(zf::export_arrow_schema(zf::zeros({}, zf::float32), "scalar", &s), zf::invalid_argument);  // 0-d
  EXPECT_THROW(zf::export_arrow_schema(zf::zeros({2, 2, 2}, zf::float32), "cube", &s), zf::invalid_argument);
  EXPECT_THROW(zf::export_arrow_array(zf::array{}, &arr), zf::invalid_argument);
  EXPECT_EQ(arr.release, nullptr);  // nothing half-filled was handed out
}

TEST(Arrow, EmptyArraysExport) {
  zf::array a = zf::zeros({0}, zf::int64);
  ar::ArrowSchema s{};
  ar::ArrowArray arr{};
  zf::export_arrow_schema(a, "e", &s);
  zf::export_arrow_array(a, &arr);
  EXPECT_EQ(arr.length, 0);
  zf::array back = zf::import_arrow_array(s, &arr);
  EXPECT_EQ(back.size(), 0);
  EXPECT_EQ(back.type(), zf::int64);
  s.release(&s);
}

TEST(Arrow, NullsAreRefusedAndTheInputReleasedOnce) {
  std::vector<float> values = {1, 2, 3, 4};
  std::uint8_t validity = 0b1011;  // row 2 is null
  {
    foreign_array f(&validity, values.data(), 4, 0, 1);
    auto schema = primitive_schema("f");
    EXPECT_THROW((void)zf::import_arrow_array(schema, &f.array), zf::invalid_argument);
    EXPECT_EQ(f.releases, 1);
  }
  {
    foreign_array f(&validity, values.data(), 4, 0, -1);  // unknown count: the bitmap is read
    auto schema = primitive_schema("f");
    EXPECT_THROW((void)zf::import_arrow_array(schema, &f.array), zf::invalid_argument);
    EXPECT_EQ(f.releases, 1);
  }
  {
    std::uint8_t all_valid = 0b1111;
    foreign_array f(&all_valid, values.data(), 4, 0, -1);
    auto schema = primitive_schema("f");
    zf::array a = zf::import_arrow_array(schema, &f.array);
    EXPECT_EQ(values_of<float>(a), values);
  }
}

TEST(Arrow, ConsumedTwiceIsRefusedWithoutTouchingIt) {
  std::vector<float> values = {1, 2};
  foreign_array f(nullptr, values.data(), 2, 0, 0);
  auto schema = primitive_schema("f");
  zf::array a = zf::import_arrow_array(schema, &f.array);
  EXPECT_THROW((void)zf::import_arrow_array(schema, &f.array), zf::invalid_argument);
  a = zf::array{};
  EXPECT_EQ(f.releases, 1);
}

TEST(Arrow, UnsupportedTypesAreRefusedAndReleased) {
  std::vector<std::int32_t> offsets = {0, 1};
  foreign_array f(nullptr, offsets.data(), 1, 0, 0);
  auto schema = primitive_schema("u");  // utf8 string
  EXPECT_THROW((void)zf::import_arrow_array(schema, &f.array), zf::invalid_argument);
  EXPECT_EQ(f.releases, 1);
}

TEST(Arrow, TableExportsAsAStructAndAMovedChildOutlivesItsParent) {
  std::atomic<int> releases{0};
  zf::table t;
  t.names = {"a", "b"};
  t.columns.push_back(counted_array(random_values<float>(5, 5), {5}, &releases));
  t.columns.push_back(counted_array(std::vector<std::int64_t>{1, 2, 3, 4, 5}, {5}, &releases));
  ar::ArrowSchema s{};
  ar::ArrowArray arr{};
  zf::export_arrow_schema(t, &s);
  zf::export_arrow_array(t, &arr);
  EXPECT_EQ(std::string(s.format), "+s");
  ASSERT_EQ(s.n_children, 2);
  EXPECT_EQ(std::string(s.children[0]->name), "a");
  EXPECT_EQ(std::string(s.children[1]->format), "l");
  EXPECT_EQ(arr.length, 5);
  EXPECT_EQ(arr.n_buffers, 1);
  EXPECT_EQ(arr.children[1]->buffers[1], t.columns[1].data());

  // The consumer moves child "b" out, then releases the parent: "b" must stay valid.
  ar::ArrowArray moved = *arr.children[1];
  arr.children[1]->release = nullptr;
  t = zf::table{};
  arr.release(&arr);
  EXPECT_EQ(releases, 1);  // column "a" is gone, "b" is still held by the moved child
  EXPECT_EQ(static_cast<const std::int64_t*>(moved.buffers[1])[4], 5);
  moved.release(&moved);
  EXPECT_EQ(releases, 2);
  s.release(&s);
}

TEST(Arrow, TableRoundTrip) {
  std::atomic<int> releases{0};
  zf::table t;
  t.names = {"x", "flag"};
  t.columns.push_back(counted_array(std::vector<double>{1.5, 2.5, 3.5}, {3}, &releases));
  t.columns.push_back(zf::zeros({3}, zf::bool8));
  ar::ArrowSchema s{};
  ar::ArrowArray arr{};
  zf::export_arrow_schema(t, &s);
  zf::export_arrow_array(t, &arr);
  EXPECT_TRUE(zf::arrow_import_copies(s));  // the bool column
  zf::table back = zf::import_arrow_table(s, &arr);
  EXPECT_EQ(back.names, t.names);
  EXPECT_EQ(back.columns[0].data(), t.columns[0].data());
  EXPECT_EQ(values_of<double>(back.columns[0]), (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(back.columns[1].type(), zf::bool8);
  s.release(&s);
}

TEST(Arrow, StreamYieldsOneBatchThenEnds) {
  zf::table t;
  t.names = {"v"};
  t.columns.push_back(zf::zeros({7}, zf::float32));
  ar::ArrowArrayStream stream{};
  zf::export_arrow_stream(t, &stream);
  ar::ArrowSchema s{};
  ASSERT_EQ(stream.get_schema(&stream, &s), 0);
  EXPECT_EQ(std::string(s.format), "+s");
  ar::ArrowArray batch{};
  ASSERT_EQ(stream.get_next(&stream, &batch), 0);
  ASSERT_NE(batch.release, nullptr);
  EXPECT_EQ(batch.length, 7);
  ar::ArrowArray end{};
  ASSERT_EQ(stream.get_next(&stream, &end), 0);
  EXPECT_EQ(end.release, nullptr);
  EXPECT_EQ(stream.get_last_error(&stream), nullptr);
  batch.release(&batch);
  s.release(&s);
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

TEST(Arrow, DeviceExportOfHostMemoryHasNoEvent) {
  zf::array a = zf::zeros({4}, zf::float32);
  ar::ArrowDeviceArray out{};
  zf::export_arrow_device_array(a, &out, zf::stream_view{});
  EXPECT_EQ(out.device_type, ar::device_cpu);
  EXPECT_EQ(out.device_id, 0);
  EXPECT_EQ(out.sync_event, nullptr);
  EXPECT_EQ(out.reserved[0] | out.reserved[1] | out.reserved[2], 0);
  EXPECT_EQ(out.array.buffers[1], a.data());
  ar::ArrowSchema s{};
  zf::export_arrow_schema(a, "", &s);
  zf::array back = zf::import_arrow_device_array(s, &out, zf::stream_view{});
  EXPECT_EQ(back.data(), a.data());
  s.release(&s);
}

TEST(Arrow, DeviceImportRefusesUnknownDevicesAndReleases) {
  std::vector<float> values = {1};
  foreign_array f(nullptr, values.data(), 1, 0, 0);
  ar::ArrowDeviceArray in{};
  in.array = f.array;
  f.array.release = nullptr;
  in.device_type = 10;  // ROCm
  auto schema = primitive_schema("f");
  EXPECT_THROW((void)zf::import_arrow_device_array(schema, &in, zf::stream_view{}), zf::invalid_argument);
  EXPECT_EQ(f.releases, 1);
}

TEST(ArrowCuda, DeviceExportRecordsAnEventAndRoundTrips) {
  if (!zf::cuda_available()) GTEST_SKIP() << "needs a GPU";
  zf::array a = zf::zeros({1024}, zf::float32, zf::cuda_device(0));
  ar::ArrowDeviceArray out{};
  zf::export_arrow_device_array(a, &out, zf::stream_view{});
  EXPECT_EQ(out.device_type, ar::device_cuda);
  EXPECT_NE(out.sync_event, nullptr);
  EXPECT_THROW(zf::export_arrow_array(a, &out.array), zf::invalid_argument);  // host interface refuses
  ar::ArrowSchema s{};
  zf::export_arrow_schema(a, "", &s);
  zf::array back = zf::import_arrow_device_array(s, &out, zf::stream_view::per_thread());
  EXPECT_EQ(back.data(), a.data());
  EXPECT_EQ(back.where(), zf::cuda_device(0));
  s.release(&s);
  ar::ArrowDeviceArray bools{};
  EXPECT_THROW(zf::export_arrow_device_array(zf::zeros({3}, zf::bool8, zf::cuda_device(0)), &bools, {}),
               zf::invalid_argument);
}
