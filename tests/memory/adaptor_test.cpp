// What each adaptor adds on top of the conformance suite: the numbers it keeps, the failures
// it raises and the lines it writes, checked against a hand count.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "memory/memory_test_util.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/host_resource.hpp"
#include "zeroflow/memory/leak_tracking_adaptor.hpp"
#include "zeroflow/memory/limiting_adaptor.hpp"
#include "zeroflow/memory/logging_adaptor.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"

namespace {

using namespace zf_test;

zm::resource_ptr host() { return std::make_shared<zm::host_resource>(); }

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// ---- statistics -----------------------------------------------------------------------------

TEST(StatisticsAdaptor, MatchesAHandCountThroughRandomTraffic) {
  zm::statistics_adaptor stats(host());
  std::mt19937_64 rng(5);
  struct live_block {
    void* p;
    std::size_t bytes;
  };
  std::vector<live_block> live;
  zm::allocation_statistics expected;
  for (int op = 0; op < 500; ++op) {
    if (!live.empty() && rng() % 5 < 2) {
      const auto i = rng() % live.size();
      stats.deallocate(live[i].p, live[i].bytes, {});
      expected.current_bytes -= live[i].bytes;
      --expected.current_count;
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const std::size_t bytes = rng() % 2000;  // 0 included: never reaches the adaptor
      void* p = stats.allocate(bytes, {});
      if (bytes == 0) continue;
      live.push_back({p, bytes});
      expected.current_bytes += bytes;
      expected.total_bytes += bytes;
      ++expected.current_count;
      ++expected.total_count;
      expected.peak_bytes = std::max(expected.peak_bytes, expected.current_bytes);
      expected.peak_count = std::max(expected.peak_count, expected.current_count);
    }
    const auto got = stats.statistics();
    ASSERT_EQ(got.current_bytes, expected.current_bytes) << "op " << op;
    ASSERT_EQ(got.peak_bytes, expected.peak_bytes) << "op " << op;
    ASSERT_EQ(got.total_bytes, expected.total_bytes) << "op " << op;
    ASSERT_EQ(got.current_count, expected.current_count) << "op " << op;
    ASSERT_EQ(got.peak_count, expected.peak_count) << "op " << op;
    ASSERT_EQ(got.total_count, expected.total_count) << "op " << op;
  }
  for (const auto& b : live) stats.deallocate(b.p, b.bytes, {});
  EXPECT_EQ(stats.statistics().current_bytes, 0u);
  EXPECT_EQ(stats.statistics().current_count, 0);
}

TEST(StatisticsAdaptor, ResetPeakStartsANewWindowAndKeepsTotals) {
  zm::statistics_adaptor stats(host());
  void* a = stats.allocate(1000, {});
  void* b = stats.allocate(500, {});
  stats.deallocate(a, 1000, {});
  auto s = stats.statistics();
  EXPECT_EQ(s.peak_bytes, 1500u);
  EXPECT_EQ(s.peak_count, 2);
  stats.reset_peak();
  s = stats.statistics();
  EXPECT_EQ(s.peak_bytes, 500u);
  EXPECT_EQ(s.peak_count, 1);
  EXPECT_EQ(s.total_bytes, 1500u);
  EXPECT_EQ(s.total_count, 2);
  void* c = stats.allocate(100, {});
  EXPECT_EQ(stats.statistics().peak_bytes, 600u);
  stats.deallocate(b, 500, {});
  stats.deallocate(c, 100, {});
  EXPECT_EQ(stats.statistics().peak_bytes, 600u);
}

TEST(StatisticsAdaptor, ConcurrentTrafficAddsUp) {
  auto stats = std::make_shared<zm::statistics_adaptor>(host());
  constexpr int threads = 8, per_thread = 200;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&stats, t] {
      std::vector<void*> mine;
      for (int i = 0; i < per_thread; ++i) mine.push_back(stats->allocate(static_cast<std::size_t>(t + 1), {}));
      for (void* p : mine) stats->deallocate(p, static_cast<std::size_t>(t + 1), {});
    });
  for (auto& th : pool) th.join();
  const auto s = stats->statistics();
  EXPECT_EQ(s.current_bytes, 0u);
  EXPECT_EQ(s.current_count, 0);
  EXPECT_EQ(s.total_count, threads * per_thread);
  EXPECT_EQ(s.total_bytes, std::size_t{per_thread} * (threads * (threads + 1) / 2));
  EXPECT_GE(s.peak_count, per_thread);
  EXPECT_LE(s.peak_count, threads * per_thread);
}

// ---- limiting -------------------------------------------------------------------------------

TEST(LimitingAdaptor, ThrowsPastTheBudgetWithoutAskingUpstreamAndRecovers) {
  auto counter = std::make_shared<counting_resource>(host());
  zm::limiting_adaptor limit(counter, 1000);
  EXPECT_EQ(limit.budget(), 1000u);
  void* a = limit.allocate(600, {});
  EXPECT_EQ(limit.used(), 600u);

  const std::string message = what_of([&] { (void)limit.allocate(500, {}); });
  EXPECT_NE(message.find("500"), std::string::npos) << message;
  EXPECT_NE(message.find("600"), std::string::npos) << message;
  EXPECT_NE(message.find("1000"), std::string::npos) << message;
  EXPECT_THROW((void)limit.allocate(401, {}), zf::out_of_memory);
  EXPECT_EQ(counter->allocations.load(), 1) << "a refused request must not reach the upstream";
  EXPECT_EQ(limit.used(), 600u);

  void* b = limit.allocate(400, {});  // exactly at the budget is allowed
  EXPECT_THROW((void)limit.allocate(1, {}), zf::out_of_memory);
  limit.deallocate(a, 600, {});
  limit.deallocate(b, 400, {});
  EXPECT_EQ(limit.used(), 0u);
  void* whole = limit.allocate(1000, {});                                      // freed memory is usable again
  EXPECT_THROW((void)limit.allocate(std::size_t(-1), {}), zf::out_of_memory);  // no overflow in the check
  limit.deallocate(whole, 1000, {});
}

TEST(LimitingAdaptor, AnUpstreamFailureGivesTheReservationBack) {
  auto inner = std::make_shared<zm::limiting_adaptor>(host(), 100);
  zm::limiting_adaptor outer(inner, 1000);
  EXPECT_THROW((void)outer.allocate(500, {}), zf::out_of_memory);
  EXPECT_EQ(outer.used(), 0u);
  void* p = outer.allocate(100, {});
  EXPECT_EQ(outer.used(), 100u);
  outer.deallocate(p, 100, {});
}

TEST(LimitingAdaptor, ConcurrentThreadsNeverExceedTheBudget) {
  // statistics below the limit sees what actually got allocated at once.
  auto below = std::make_shared<zm::statistics_adaptor>(host());
  auto limit = std::make_shared<zm::limiting_adaptor>(below, 64 * 1024);
  std::atomic<int> refused{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&] {
      std::vector<void*> mine;
      for (int i = 0; i < 100; ++i) {
        try {
          mine.push_back(limit->allocate(4096, {}));
        } catch (const zf::out_of_memory&) {
          ++refused;
          if (!mine.empty()) {
            limit->deallocate(mine.back(), 4096, {});
            mine.pop_back();
          }
        }
      }
      for (void* p : mine) limit->deallocate(p, 4096, {});
    });
  for (auto& th : pool) th.join();
  EXPECT_GT(refused.load(), 0) << "8 × 100 × 4 KiB must hit a 64 KiB budget";
  EXPECT_LE(below->statistics().peak_bytes, 64u * 1024);
  EXPECT_EQ(limit->used(), 0u);
}

// ---- logging --------------------------------------------------------------------------------

struct log_line {
  std::uint64_t time_ns;
  std::string thread, action;
  std::uintptr_t pointer;
  std::size_t bytes;
  std::uintptr_t stream;
};

std::vector<log_line> parse_log(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_ns,thread,action,pointer,bytes,stream");
  std::vector<log_line> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    EXPECT_EQ(f.size(), 6u) << line;
    if (f.size() != 6) continue;
    EXPECT_EQ(f[3].rfind("0x", 0), 0u) << line;
    out.push_back({std::stoull(f[0]), f[1], f[2], static_cast<std::uintptr_t>(std::stoull(f[3], nullptr, 16)),
                   static_cast<std::size_t>(std::stoull(f[4])), static_cast<std::uintptr_t>(std::stoull(f[5]))});
  }
  return out;
}

TEST(LoggingAdaptor, WritesOneParseableLinePerCall) {
  std::ostringstream out;
  auto limit = std::make_shared<zm::limiting_adaptor>(host(), 1000);
  std::vector<std::tuple<std::string, void*, std::size_t, zf::stream_view>> calls;
  {
    zm::logging_adaptor log(limit, out);
    void* a = log.allocate(100, {});
    calls.emplace_back("allocate", a, 100, zf::stream_view{});
    void* b = log.allocate(7, zf::stream_view::per_thread());
    calls.emplace_back("allocate", b, 7, zf::stream_view::per_thread());
    EXPECT_EQ(log.allocate(0, {}), nullptr);  // answered by resource::allocate, not logged
    EXPECT_THROW((void)log.allocate(5000, {}), zf::out_of_memory);
    calls.emplace_back("allocate_failed", nullptr, 5000, zf::stream_view{});
    log.deallocate(a, 100, {});
    calls.emplace_back("deallocate", a, 100, zf::stream_view{});
    log.deallocate(b, 7, zf::stream_view::per_thread());
    calls.emplace_back("deallocate", b, 7, zf::stream_view::per_thread());
    log.flush();
  }
  std::ostringstream me;
  me << std::this_thread::get_id();
  const auto lines = parse_log(out.str());
  ASSERT_EQ(lines.size(), calls.size()) << out.str();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& [action, p, bytes, stream] = calls[i];
    EXPECT_EQ(lines[i].action, action) << "line " << i;
    EXPECT_EQ(lines[i].pointer, reinterpret_cast<std::uintptr_t>(p)) << "line " << i;
    EXPECT_EQ(lines[i].bytes, bytes) << "line " << i;
    EXPECT_EQ(lines[i].stream, stream.as_integer()) << "line " << i;
    EXPECT_EQ(lines[i].thread, me.str()) << "line " << i;
    if (i > 0) {
      EXPECT_GE(lines[i].time_ns, lines[i - 1].time_ns) << "line " << i;
    }
  }
}

TEST(LoggingAdaptor, WritesToAFileAndKeepsConcurrentLinesWhole) {
  const auto path = scratch_path("logging_adaptor_test.csv");
  constexpr int threads = 6, per_thread = 100;
  {
    auto log = std::make_shared<zm::logging_adaptor>(host(), path);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&log] {
        for (int i = 0; i < per_thread; ++i) log->deallocate(log->allocate(64, {}), 64, {});
      });
    for (auto& th : pool) th.join();
  }  // destroying the adaptor closes (and flushes) the file
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  in.close();
  std::filesystem::remove(path);
  const auto lines = parse_log(text.str());
  ASSERT_EQ(lines.size(), std::size_t{2} * threads * per_thread);
  std::set<std::string> thread_ids;
  for (const auto& l : lines) {
    EXPECT_TRUE(l.action == "allocate" || l.action == "deallocate") << l.action;
    EXPECT_EQ(l.bytes, 64u);
    EXPECT_NE(l.pointer, 0u);
    thread_ids.insert(l.thread);
  }
  EXPECT_EQ(thread_ids.size(), std::size_t{threads});
}

TEST(LoggingAdaptor, RefusesAPathItCannotOpen) {
  EXPECT_THROW(zm::logging_adaptor(host(), std::filesystem::path("/nonexistent-folder/x/log.csv")),
               zf::invalid_argument);
}

// ---- leak tracking --------------------------------------------------------------------------

TEST(LeakTrackingAdaptor, ReportsNeverFreedAllocationsWithSizes) {
  zm::leak_tracking_adaptor leaks(host(), /*report_on_destruction=*/false);
  EXPECT_NE(leaks.report().find("no outstanding allocations"), std::string::npos);
  void* a = leaks.allocate(100, {});
  void* b = leaks.allocate(200, {});
  void* c = leaks.allocate(300, {});
  leaks.deallocate(b, 200, {});

  const auto live = leaks.outstanding();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].pointer, a);
  EXPECT_EQ(live[0].bytes, 100u);
  EXPECT_EQ(live[0].sequence, 0u);
  EXPECT_EQ(live[1].pointer, c);
  EXPECT_EQ(live[1].bytes, 300u);
  EXPECT_EQ(live[1].sequence, 2u);

  const std::string report = leaks.report();
  EXPECT_NE(report.find("leak_tracking(host)"), std::string::npos) << report;
  EXPECT_NE(report.find("2 outstanding allocations"), std::string::npos) << report;
  EXPECT_NE(report.find("400 bytes in total"), std::string::npos) << report;
  EXPECT_NE(report.find("100 bytes"), std::string::npos) << report;
  EXPECT_NE(report.find("300 bytes"), std::string::npos) << report;
  EXPECT_EQ(report.find("200 bytes"), std::string::npos) << report;

  leaks.deallocate(a, 100, {});
  leaks.deallocate(c, 300, {});
  EXPECT_TRUE(leaks.outstanding().empty());
}

TEST(LeakTrackingAdaptor, RefusesDoubleForeignAndMisSizedReleasesWithoutCallingUpstream) {
  auto counter = std::make_shared<counting_resource>(host());
  zm::leak_tracking_adaptor leaks(counter, false);
  void* p = leaks.allocate(64, {});
  leaks.deallocate(p, 64, {});
  ASSERT_EQ(counter->deallocations.load(), 1);

  std::ostringstream pointer_text;
  pointer_text << p;
  const std::string twice = what_of([&] { leaks.deallocate(p, 64, {}); });
  EXPECT_NE(twice.find(pointer_text.str()), std::string::npos) << twice;
  EXPECT_NE(twice.find("64 bytes"), std::string::npos) << twice;
  EXPECT_THROW(leaks.deallocate(p, 64, {}), zf::invalid_argument);

  int foreign = 0;
  EXPECT_THROW(leaks.deallocate(&foreign, sizeof foreign, {}), zf::invalid_argument);

  void* q = leaks.allocate(128, {});
  const std::string wrong_size = what_of([&] { leaks.deallocate(q, 64, {}); });
  EXPECT_NE(wrong_size.find("128"), std::string::npos) << wrong_size;
  EXPECT_EQ(counter->deallocations.load(), 1) << "refused releases must not reach the upstream";
  leaks.deallocate(q, 128, {});  // still live after the refused attempt
  EXPECT_EQ(counter->deallocations.load(), 2);
}

TEST(LeakTrackingAdaptor, TracksArraysThroughTheCurrentResource) {
  auto leaks = std::make_shared<zm::leak_tracking_adaptor>(host(), false);
  scoped_current_resource use(leaks);
  {
    zf::array a = zf::empty({3, 5}, zf::float64);
    ASSERT_EQ(leaks->outstanding().size(), 1u);
    EXPECT_EQ(leaks->outstanding()[0].bytes, 3u * 5 * 8);
  }
  EXPECT_TRUE(leaks->outstanding().empty());
}

// ---- all adaptors ---------------------------------------------------------------------------

TEST(Adaptors, RejectANullUpstream) {
  EXPECT_THROW(zm::statistics_adaptor(nullptr), zf::invalid_argument);
  EXPECT_THROW(zm::limiting_adaptor(nullptr, 10), zf::invalid_argument);
  EXPECT_THROW(zm::leak_tracking_adaptor(nullptr), zf::invalid_argument);
  std::ostringstream out;
  EXPECT_THROW(zm::logging_adaptor(nullptr, out), zf::invalid_argument);
}

TEST(Adaptors, StackNamesAndDevicesFromTheirUpstream) {
  auto stack = std::make_shared<zm::statistics_adaptor>(
      std::make_shared<zm::limiting_adaptor>(std::make_shared<zm::leak_tracking_adaptor>(host()), 10));
  EXPECT_EQ(stack->name(), "statistics(limiting(leak_tracking(host)))");
  EXPECT_EQ(stack->where(), zf::cpu_device);
}

}  // namespace
