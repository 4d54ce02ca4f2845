// The RAII owners of Arrow C structs: every live struct released exactly once, moves that leave
// the source released, and a consumer's round trip through an exported stream.
#include "zeroflow/interop/arrow_owner.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "zeroflow/interop/arrow.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace ar = zeroflow::arrow;

namespace {

/// Release calls per producer struct, found through private_data.
struct release_log {
  int calls = 0;
};

void counted_schema_release(ar::ArrowSchema* s) {
  ++static_cast<release_log*>(s->private_data)->calls;
  s->release = nullptr;
}
void counted_array_release(ar::ArrowArray* a) {
  ++static_cast<release_log*>(a->private_data)->calls;
  a->release = nullptr;
}
void counted_stream_release(ar::ArrowArrayStream* s) {
  ++static_cast<release_log*>(s->private_data)->calls;
  s->release = nullptr;
}
/// A producer that forgets to mark its struct released (the spec says it must).
void careless_array_release(ar::ArrowArray* a) { ++static_cast<release_log*>(a->private_data)->calls; }

ar::ArrowSchema live_schema(release_log* log) {
  ar::ArrowSchema s{};
  s.format = "f";
  s.private_data = log;
  s.release = &counted_schema_release;
  return s;
}

ar::ArrowArray live_array(release_log* log, void (*release)(ar::ArrowArray*) = &counted_array_release) {
  ar::ArrowArray a{};
  a.length = 3;
  a.private_data = log;
  a.release = release;
  return a;
}

}  // namespace

TEST(ArrowOwner, EmptyOwnerHoldsAReleasedStructAndCallsNothing) {
  ar::unique_struct<ar::ArrowSchema> schema;
  ar::unique_struct<ar::ArrowDeviceArray> device;
  EXPECT_FALSE(schema);
  EXPECT_FALSE(device);
  EXPECT_EQ(schema->release, nullptr);
  EXPECT_EQ(device->array.release, nullptr);
}

TEST(ArrowOwner, TakingMovesTheStructAndReleasesItOnceAtTheEnd) {
  release_log log;
  ar::ArrowSchema producer = live_schema(&log);
  {
    ar::unique_struct<ar::ArrowSchema> owner(&producer);
    EXPECT_EQ(producer.release, nullptr);  // the source is marked released by the move
    ASSERT_TRUE(owner);
    EXPECT_STREQ(owner->format, "f");
    EXPECT_EQ(log.calls, 0);
  }
  EXPECT_EQ(log.calls, 1);
}

TEST(ArrowOwner, TakingAReleasedStructGivesAnEmptyOwner) {
  release_log log;
  ar::ArrowArray producer = live_array(&log);
  producer.release = nullptr;
  {
    ar::unique_struct<ar::ArrowArray> owner(&producer);
    EXPECT_FALSE(owner);
  }
  EXPECT_EQ(log.calls, 0);
}

TEST(ArrowOwner, MovingTheOwnerMovesTheStructAndReleasesItOnce) {
  release_log log;
  ar::ArrowArray producer = live_array(&log);
  {
    ar::unique_struct<ar::ArrowArray> first(&producer);
    ar::unique_struct<ar::ArrowArray> second(std::move(first));
    EXPECT_FALSE(first);  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
    EXPECT_TRUE(second);
    ar::unique_struct<ar::ArrowArray> third;
    third = std::move(second);
    EXPECT_FALSE(second);  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(third);
    EXPECT_EQ(third->length, 3);
    EXPECT_EQ(log.calls, 0);
  }
  EXPECT_EQ(log.calls, 1);
}

TEST(ArrowOwner, MoveAssignmentReleasesWhatTheTargetHeld) {
  release_log old_log, new_log;
  ar::ArrowArray old_producer = live_array(&old_log);
  ar::ArrowArray new_producer = live_array(&new_log);
  ar::unique_struct<ar::ArrowArray> target(&old_producer);
  ar::unique_struct<ar::ArrowArray> source(&new_producer);
  target = std::move(source);
  EXPECT_EQ(old_log.calls, 1);
  EXPECT_EQ(new_log.calls, 0);
  target.reset();
  EXPECT_EQ(new_log.calls, 1);
  EXPECT_FALSE(target);
  target.reset();  // a second reset finds a released struct and calls nothing
  EXPECT_EQ(new_log.calls, 1);
}

TEST(ArrowOwner, ResetWithASourceReleasesTheOldStructFirst) {
  release_log a_log, b_log;
  ar::ArrowSchema a = live_schema(&a_log);
  ar::ArrowSchema b = live_schema(&b_log);
  ar::unique_struct<ar::ArrowSchema> owner(&a);
  owner.reset(&b);
  EXPECT_EQ(a_log.calls, 1);
  EXPECT_EQ(b_log.calls, 0);
  EXPECT_EQ(b.release, nullptr);
  owner.reset();
  EXPECT_EQ(b_log.calls, 1);
}

TEST(ArrowOwner, MoveToHandsOwnershipOnAndReleasesNothing) {
  release_log log;
  ar::ArrowArray producer = live_array(&log);
  ar::ArrowArray out{};
  {
    ar::unique_struct<ar::ArrowArray> owner(&producer);
    owner.move_to(&out);
    EXPECT_FALSE(owner);
  }
  EXPECT_EQ(log.calls, 0);
  ASSERT_NE(out.release, nullptr);
  ar::release(out);
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(out.release, nullptr);
}

TEST(ArrowOwner, ACarelessProducerIsStillReleasedOnlyOnce) {
  release_log log;
  ar::ArrowArray producer = live_array(&log, &careless_array_release);
  ar::unique_struct<ar::ArrowArray> owner(&producer);
  owner.reset();
  owner.reset();
  EXPECT_EQ(log.calls, 1);
  EXPECT_FALSE(owner);
}

TEST(ArrowOwner, DeviceArrayReleasesItsEmbeddedArray) {
  release_log log;
  ar::ArrowDeviceArray producer{};
  producer.array = live_array(&log);
  producer.device_type = ar::device_cpu;
  {
    ar::unique_struct<ar::ArrowDeviceArray> owner(&producer);
    EXPECT_EQ(producer.array.release, nullptr);
    EXPECT_TRUE(owner);
    EXPECT_EQ(owner->device_type, ar::device_cpu);
  }
  EXPECT_EQ(log.calls, 1);
}

TEST(ArrowOwner, BoxReleasesALiveStructAndSkipsAMovedOne) {
  release_log kept_log, moved_log;
  {
    auto box = ar::make_box<ar::ArrowArray>();
    EXPECT_EQ(box->release, nullptr);  // a new box holds a released struct
    *box = live_array(&kept_log);
  }
  EXPECT_EQ(kept_log.calls, 1);

  ar::ArrowArray taken{};
  {
    auto box = ar::make_box<ar::ArrowArray>();
    *box = live_array(&moved_log);
    taken = *box;  // a consumer moves the struct out, as the spec allows
    ar::mark_released(*box);
  }
  EXPECT_EQ(moved_log.calls, 0);
  ar::release(taken);
  EXPECT_EQ(moved_log.calls, 1);
}

TEST(ArrowOwner, StreamOwnerReleasesOnce) {
  release_log log;
  ar::ArrowArrayStream producer{};
  producer.private_data = &log;
  producer.release = &counted_stream_release;
  { ar::unique_struct<ar::ArrowArrayStream> owner(&producer); }
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(producer.release, nullptr);
}

TEST(ArrowOwner, ConsumesAnExportedStreamBatchByBatch) {
  const std::vector<float> values{1.5F, -2.25F, 3.0F, 4.75F};
  zf::array column = zf::empty({4}, zf::float32, zf::cpu_device);
  std::copy(values.begin(), values.end(), column.data_as<float>());
  zf::table t;
  t.names = {"x"};
  t.columns = {column};

  ar::ArrowArrayStream exported{};
  zf::export_arrow_stream(t, &exported);
  ar::unique_struct<ar::ArrowArrayStream> stream(&exported);
  ar::unique_struct<ar::ArrowSchema> schema;
  ASSERT_EQ(stream->get_schema(stream.get(), schema.get()), 0);
  ASSERT_TRUE(schema);
  EXPECT_STREQ(schema->format, "+s");

  std::vector<zf::table> batches;
  for (;;) {
    ar::unique_struct<ar::ArrowArray> batch;
    ASSERT_EQ(stream->get_next(stream.get(), batch.get()), 0);
    if (!batch) break;
    batches.push_back(zf::import_arrow_table(*schema, batch.get()));
    EXPECT_FALSE(batch);  // the import took the batch
  }
  ASSERT_EQ(batches.size(), 1U);
  ASSERT_EQ(batches[0].names, t.names);
  const auto* got = batches[0].columns[0].data_as<const float>();
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(got[i], values[i]) << "row " << i;
}
