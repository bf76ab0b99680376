#!/usr/bin/env bash
# The main job on a default model: builds the tools, makes a MobileNet-shaped float model with
# seeded weights (no download), and benchmarks it with TFLite's flags. Extra arguments go to
# benchmark_model (e.g. scripts/demo.sh --num_runs=100).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bazel build //tools/benchmark_model //tools/make_model
mkdir -p out
bazel-bin/tools/make_model/make_model --output=out/mobilenet_like_224.tflite
bazel-bin/tools/benchmark_model/benchmark_model --graph=out/mobilenet_like_224.tflite --num_runs=20 "$@"
