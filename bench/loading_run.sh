#!/usr/bin/env bash
# The loading benchmark on the GPU machine in one command (docs/loading.md): configures the CUDA
# build with the benchmarks and KvikIO (from .carry/kvikio, see docs/loading.md), builds the
# benchmark, runs it and, where matplotlib is installed, draws the chart.
# Usage: bench/loading_run.sh [zeroflow_loading_bench arguments]   (results under $OUT when set)
#   e.g. bench/loading_run.sh --sizes 0.5,2,8 --dir /tmp/zeroflow-loading
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/loading-out}
build=${ZEROFLOW_BUILD_DIR:-build/gpu}
mkdir -p "$out"
extra=()
[ -d .carry/include ] && extra+=(-DZEROFLOW_EXTRA_INCLUDE_DIRS="$PWD/.carry/include")
[ -d .carry/googletest ] && extra+=(-DZEROFLOW_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
[ -d .carry/kvikio ] && extra+=(-DZEROFLOW_KVIKIO_ROOT="$PWD/.carry/kvikio")
torch_prefix=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
t0=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZEROFLOW_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$torch_prefix" -DZEROFLOW_BUILD_BENCHMARKS=ON "${extra[@]}" >"$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
grep -E "zeroflow: KvikIO" "$out/configure.log" || true
cmake --build "$build" -j "$(nproc)" --target zeroflow_loading_bench >"$out/build.log" 2>&1 \
  || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "configure + build: $(( $(date +%s) - t0 )) s"
"$build/bench/zeroflow_loading_bench" --json "$out/loading.json" "$@" | tee "$out/loading.txt"
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 bench/loading_chart.py "$out/loading.json" --png "$out/loading.png" >"$out/loading.md"
else
  python3 bench/loading_chart.py "$out/loading.json" >"$out/loading.md"
  echo "no matplotlib here: draw the chart elsewhere with bench/loading_chart.py $out/loading.json --png FILE"
fi
cat "$out/loading.md"
