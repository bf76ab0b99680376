# The image Touchstone's tools run in on a cluster (docs/cluster.md): Debian 12, the Debian packages
# scripts/setup.sh installs, and the tools built from this checkout, on PATH. Nothing but Debian's
# packages is downloaded.
#   docker build --build-arg TOUCHSTONE_VERSION="$(git describe --always --dirty --tags)" -t touchstone:latest .
# Every shard of a run must come from one image: merge_reports refuses shards of two builds.
FROM debian:12
ARG TOUCHSTONE_VERSION=unknown
COPY . /opt/touchstone/src
WORKDIR /opt/touchstone/src
RUN bash scripts/setup.sh \
 && TOUCHSTONE_VERSION="$TOUCHSTONE_VERSION" bazel --output_base=/tmp/bazel build \
      //tools/benchmark_model //tools/inference_diff //tools/imagenet_eval //tools/coco_eval \
      //tools/merge_reports //tools/report_view //tools/report_diff \
 && for tool in benchmark_model inference_diff imagenet_eval coco_eval merge_reports report_view report_diff; do \
      cp "bazel-bin/tools/$tool/$tool" /usr/local/bin/; \
    done \
 && bazel --output_base=/tmp/bazel shutdown && rm -rf /tmp/bazel /root/.cache/bazel
WORKDIR /work
