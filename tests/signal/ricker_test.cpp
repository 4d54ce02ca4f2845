#include "zeroflow/signal/ricker.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {
// The kernel written out independently: t = -3 + 6k/(w-1).
std::vector<double> reference_taps(std::int64_t w) {
  std::vector<double> h(static_cast<std::size_t>(w));
  for (std::int64_t k = 0; k < w; ++k) {
    const double t = w == 1 ? -3.0 : -3.0 + 6.0 * static_cast<double>(k) / static_cast<double>(w - 1);
    h[static_cast<std::size_t>(k)] = (1 - t * t) * std::exp(-t * t / 2) * 2 / std::sqrt(static_cast<double>(w));
  }
  return h;
}

std::vector<float> random_signal(std::mt19937_64& rng, std::int64_t n) {
  std::normal_distribution<float> noise(0.5f, 2.0f);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = noise(rng);
  return x;
}

// y[n] = Σ_k h[k]·x[(n−k) mod N], written as plainly as possible.
std::vector<double> modular_convolution(const std::vector<float>& x, const std::vector<double>& h) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<double> y(x.size());
  for (std::int64_t i = 0; i < n; ++i) {
    double acc = 0;
    for (std::size_t k = 0; k < h.size(); ++k)
      acc += h[k] * x[static_cast<std::size_t>(((i - static_cast<std::int64_t>(k)) % n + n) % n)];
    y[static_cast<std::size_t>(i)] = acc;
  }
  return y;
}

// The seed's definition: irfft(rfft(x) · rfft(h zero-embedded to N)), with O(N²) DFTs.
std::vector<double> dft_convolution(const std::vector<float>& x, const std::vector<double>& h) {
  const std::size_t n = x.size();
  using cplx = std::complex<long double>;
  auto dft = [n](const std::vector<long double>& v, int sign) {
    std::vector<cplx> out(n);
    for (std::size_t f = 0; f < n; ++f)
      for (std::size_t t = 0; t < n; ++t) {
        const long double angle = sign * 2 * std::numbers::pi_v<long double> * static_cast<long double>((f * t) % n) /
                                  static_cast<long double>(n);
        out[f] += v[t] * cplx(std::cos(angle), std::sin(angle));
      }
    return out;
  };
  std::vector<long double> xv(x.begin(), x.end()), hv(n, 0.0L);
  for (std::size_t k = 0; k < h.size(); ++k) hv[k] = h[k];
  auto X = dft(xv, -1), H = dft(hv, -1);
  std::vector<double> y(n);
  for (std::size_t t = 0; t < n; ++t) {
    cplx acc = 0;
    for (std::size_t f = 0; f < n; ++f) {
      const long double angle =
          2 * std::numbers::pi_v<long double> * static_cast<long double>((f * t) % n) / static_cast<long double>(n);
      acc += X[f] * H[f] * cplx(std::cos(angle), std::sin(angle));
    }
    y[t] = static_cast<double>(acc.real() / static_cast<long double>(n));
  }
  return y;
}

// Float32 tolerance for one output: a few ulps of the largest term the sum could hold.
double tolerance(const std::vector<float>& x, const std::vector<double>& h) {
  double xmax = 0, hsum = 0;
  for (float v : x) xmax = std::max(xmax, static_cast<double>(std::fabs(v)));
  for (double v : h) hsum += std::fabs(v);
  return 4e-7 * xmax * hsum + 1e-30;
}
}  // namespace

using SignalRicker = poisoned_host;
using SignalBandpass = poisoned_host;

TEST_F(SignalRicker, KernelMatchesTheFormula) {
  for (std::int64_t w : {1, 2, 3, 7, 30, 43, 60, 257}) {
    const auto k = to_vector<float>(sig::ricker_kernel(w, zf::cpu_device, {}));
    const auto ref = reference_taps(w);
    ASSERT_EQ(k.size(), ref.size());
    for (std::size_t i = 0; i < k.size(); ++i) {
      EXPECT_NEAR(k[i], ref[i], 1e-7 * std::fabs(ref[i]) + 1e-12) << "w=" << w << " i=" << i;
      EXPECT_EQ(k[i], k[k.size() - 1 - i]) << "the kernel is symmetric, w=" << w;
    }
  }
  // The seed's 30 taps: ends at t=±3, (1-9)·e^-4.5·2/√30.
  const auto k30 = to_vector<float>(sig::ricker_kernel(30, zf::cpu_device, {}));
  EXPECT_NEAR(k30.front(), -8 * std::exp(-4.5) * 2 / std::sqrt(30.0), 1e-8);
  EXPECT_THROW((void)sig::ricker_kernel(0, zf::cpu_device, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::ricker_kernel(-3, zf::cpu_device, {}), zf::invalid_argument);
}

TEST_F(SignalBandpass, ImpulseGivesTheKernelCircularlyShifted) {
  const std::int64_t n = 50, w = 30;
  const auto h = to_vector<float>(sig::ricker_kernel(w, zf::cpu_device, {}));
  for (std::int64_t at : {0, 10, 35, 49}) {
    std::vector<float> x(n, 0.0f);
    x[static_cast<std::size_t>(at)] = 1.0f;
    const auto y = to_vector<float>(sig::bandpass(to_array(x), w, {}));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t k = ((i - at) % n + n) % n;  // causal, wrapping past the end
      EXPECT_EQ(y[static_cast<std::size_t>(i)], k < w ? h[static_cast<std::size_t>(k)] : 0.0f)
          << "impulse at " << at << ", i=" << i;
    }
  }
}

TEST_F(SignalBandpass, MatchesTheModularSumOnRandomSizes) {
  std::mt19937_64 rng(1234);
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, trial < 30 ? 3000 : 200000)(rng);
    const std::int64_t w = std::uniform_int_distribution<std::int64_t>(1, std::min<std::int64_t>(n, 80))(rng);
    const auto x = random_signal(rng, n);
    const auto y = to_vector<float>(sig::bandpass(to_array(x), w, {}));
    const auto h = reference_taps(w);
    const auto ref = modular_convolution(x, h);
    const double tol = tolerance(x, h);
    ASSERT_EQ(y.size(), x.size());
    for (std::size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], tol) << "n=" << n << " w=" << w << " i=" << i;
  }
}

TEST_F(SignalBandpass, MatchesTheSeedsFftDefinitionOnSmallSizes) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 12; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 160)(rng);
    const std::int64_t w = std::uniform_int_distribution<std::int64_t>(1, std::min<std::int64_t>(n, 40))(rng);
    const auto x = random_signal(rng, n);
    const auto y = to_vector<float>(sig::bandpass(to_array(x), w, {}));
    const auto h = reference_taps(w);
    const auto ref = dft_convolution(x, h);
    const double tol = tolerance(x, h);
    for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], ref[i], tol) << "n=" << n << " w=" << w << " i=" << i;
  }
}

TEST_F(SignalBandpass, StridedAndReadOnlyInputsGiveTheSameResult) {
  std::mt19937_64 rng(5);
  const auto x = random_signal(rng, 2001);
  const zf::array full = to_array(x);
  const zf::array every_other = full.slice(0, 0, 2001, 2).as_read_only();  // 1001 samples
  const zf::array reversed = full.slice(0, 2000, -1, -1);
  std::vector<float> even, back(x.rbegin(), x.rend());
  for (std::size_t i = 0; i < x.size(); i += 2) even.push_back(x[i]);
  EXPECT_EQ(to_vector<float>(sig::bandpass(every_other, 30, {})),
            to_vector<float>(sig::bandpass(to_array(even), 30, {})));
  EXPECT_EQ(to_vector<float>(sig::bandpass(reversed, 30, {})), to_vector<float>(sig::bandpass(to_array(back), 30, {})));
}

TEST_F(SignalBandpass, RejectsBadInput) {
  const zf::array x = to_array(std::vector<float>(100, 1.0f));
  EXPECT_THROW((void)sig::bandpass(x, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::bandpass(x, -1, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::bandpass(x, 101, {}), zf::invalid_argument);  // longer than the signal
  EXPECT_NO_THROW((void)sig::bandpass(x, 100, {}));
  EXPECT_THROW((void)sig::bandpass(to_array(std::vector<float>{}), 1, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::bandpass(to_array(std::vector<double>(100, 1.0)), 30, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::bandpass(x.reshape({10, 10}), 3, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::bandpass(zf::array{}, 3, {}), zf::invalid_argument);
}
