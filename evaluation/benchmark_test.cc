#include "evaluation/benchmark.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "delegates/sample/sample_delegate.h"
#include "evaluation/benchmark_report.h"
#include "evaluation/interpreter_state.h"
#include "evaluation/memory_usage.h"
#include "evaluation/sha256.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

// A clock that only moves when told: Invoke "takes" invoke_us, sleeping advances it exactly.
class FakeClock : public BenchmarkClock {
 public:
  int64_t NowMicros() override { return now; }
  void SleepMicros(int64_t micros) override {
    sleeps.push_back(micros);
    now += micros;
  }
  int64_t now = 5000000;
  std::vector<int64_t> sleeps;
};

struct Counted {
  FakeClock clock;
  int64_t invoke_us = 100000;
  int before = 0, invoked = 0, after = 0;
  RunLoopHooks Hooks() {
    RunLoopHooks hooks;
    hooks.before_run = [this]() {
      ++before;
      return Status::Ok();
    };
    hooks.invoke = [this]() {
      ++invoked;
      clock.now += invoke_us;
      return Status::Ok();
    };
    hooks.after_run = [this]() { ++after; };
    return hooks;
  }
};

TEST(RunLoopTest, AtLeastMinRunsAndMinSecs) {
  // 100 ms runs: 3 runs are not enough for 1 s, so it runs until 1 s has passed: 10 runs.
  Counted c;
  LatencyStats stats;
  ASSERT_TRUE(RunLoop({3, 1.0f, 150.0f, -1.0f, -1.0f}, c.Hooks(), &c.clock, &stats).ok());
  EXPECT_EQ(stats.count(), 10);
  EXPECT_EQ(c.before, 10);
  EXPECT_EQ(c.after, 10);
  for (int64_t s : stats.samples_us()) EXPECT_EQ(s, 100000);
  EXPECT_TRUE(c.clock.sleeps.empty());
  // 20 runs take longer than 1 s: the run count decides.
  Counted d;
  LatencyStats more;
  ASSERT_TRUE(RunLoop({20, 1.0f, 150.0f, -1.0f, -1.0f}, d.Hooks(), &d.clock, &more).ok());
  EXPECT_EQ(more.count(), 20);
}

TEST(RunLoopTest, MaxSecsStopsStartingRuns) {
  // A run starts while now <= start + 0.5 s: at 0, 0.1, ..., 0.5 s: 6 runs; the 6th ends at 0.6 s.
  Counted c;
  LatencyStats stats;
  ASSERT_TRUE(RunLoop({100, 0.0f, 0.5f, -1.0f, -1.0f}, c.Hooks(), &c.clock, &stats).ok());
  EXPECT_EQ(stats.count(), 6);
}

TEST(RunLoopTest, ZeroRunsAndNegativeMinSecsRunNothing) {
  // --dry_run: 0 runs, min secs -1.
  Counted c;
  LatencyStats stats;
  ASSERT_TRUE(RunLoop({0, -1.0f, 150.0f, -1.0f, -1.0f}, c.Hooks(), &c.clock, &stats).ok());
  EXPECT_EQ(stats.count(), 0);
  EXPECT_EQ(c.invoked, 0);
}

TEST(RunLoopTest, RunDelaySleepsAfterEachRun) {
  Counted c;
  LatencyStats stats;
  ASSERT_TRUE(RunLoop({3, 0.0f, 150.0f, 0.25f, -1.0f}, c.Hooks(), &c.clock, &stats).ok());
  EXPECT_EQ(stats.count(), 3);
  EXPECT_EQ(c.clock.sleeps, (std::vector<int64_t>{250000, 250000, 250000}));
  // The sleep is not part of the samples.
  for (int64_t s : stats.samples_us()) EXPECT_EQ(s, 100000);
}

TEST(RunLoopTest, RunFrequencyKeepsASchedule) {
  // 4 runs per second, 100 ms each: slots end at 0.25, 0.5, 0.75 s; each run sleeps the rest of its slot.
  Counted c;
  LatencyStats stats;
  ASSERT_TRUE(RunLoop({3, 0.0f, 150.0f, 5.0f, 4.0f}, c.Hooks(), &c.clock, &stats).ok());
  EXPECT_EQ(stats.count(), 3);
  ASSERT_EQ(c.clock.sleeps.size(), 3u);
  for (int64_t s : c.clock.sleeps) EXPECT_NEAR(s, 150000, 1);  // run_delay (5 s) is overridden
  // Behind the schedule (400 ms runs at 4 per second): no sleeping, it catches up.
  Counted slow;
  slow.invoke_us = 400000;
  LatencyStats slow_stats;
  ASSERT_TRUE(RunLoop({3, 0.0f, 150.0f, -1.0f, 4.0f}, slow.Hooks(), &slow.clock, &slow_stats).ok());
  EXPECT_TRUE(slow.clock.sleeps.empty());
}

TEST(RunLoopTest, AFailingInvokeEndsTheLoop) {
  Counted c;
  RunLoopHooks hooks = c.Hooks();
  hooks.invoke = [&]() -> Status {
    ++c.invoked;
    return c.invoked == 2 ? ExecutionError("op 3 failed") : Status::Ok();
  };
  LatencyStats stats;
  Status status = RunLoop({5, 0.0f, 150.0f, -1.0f, -1.0f}, hooks, &c.clock, &stats);
  EXPECT_EQ(status.code(), StatusCode::kExecution);
  EXPECT_EQ(stats.count(), 1);
  EXPECT_EQ(c.after, 2);  // after_run still runs (profiler bookkeeping)
}

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex(nullptr, 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::string abc = "abc";
  EXPECT_EQ(Sha256Hex(reinterpret_cast<const uint8_t*>(abc.data()), abc.size()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(Sha256Hex(reinterpret_cast<const uint8_t*>(two_blocks.data()), two_blocks.size()),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  EXPECT_EQ(Sha256Hex(reinterpret_cast<const uint8_t*>(million.data()), million.size()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(MemoryUsageTest, ReadsTheProcess) {
  const MemorySnapshot s = ReadMemorySnapshot();
  ASSERT_TRUE(s.valid);
  EXPECT_GT(s.rss_bytes, 0);
  EXPECT_GE(s.max_rss_bytes, s.rss_bytes / 2);
  PeakRssMonitor monitor(1);
  monitor.Start();
  std::vector<char> touched(8 << 20, 1);
  usleep(20000);
  monitor.Stop();
  EXPECT_GE(monitor.samples(), 2);
  EXPECT_GT(monitor.peak_rss_bytes(), 8 << 20);
  EXPECT_EQ(touched[12345], 1);
}

std::string TempPath(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// out = (x + y) - x, float32 [1, 4]; signatures "add_sub" on subgraph 0 and "copy" on subgraph 1.
std::string WriteModel(bool two_signatures) {
  ModelBuilder b;
  const int x = b.AddTensor(kTfLiteFloat32, {1, 4}, "x");
  const int y = b.AddTensor(kTfLiteFloat32, {1, 4}, "y");
  const int s = b.AddTensor(kTfLiteFloat32, {1, 4}, "sum");
  const int o = b.AddTensor(kTfLiteFloat32, {1, 4}, "out");
  b.AddOperator(kTfLiteBuiltinAdd, {x, y}, {s}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinSub, {s, x}, {o}, fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(b.fbb()).Union());
  b.SetInputs({x, y});
  b.SetOutputs({o});
  b.AddSignature("add_sub", 0, {{"first", x}, {"second", y}}, {{"result", o}});
  if (two_signatures) {
    b.AddSubgraph("copy");
    const int a = b.AddTensor(kTfLiteFloat32, {2}, "a");
    const int c = b.AddTensor(kTfLiteFloat32, {2}, "c");
    const int shape = b.AddConstTensor<int32_t>(kTfLiteInt32, {1}, std::vector<int32_t>{2}, "shape");
    b.AddOperator(kTfLiteBuiltinReshape, {a, shape}, {c});
    b.SetInputs({a});
    b.SetOutputs({c});
    b.AddSignature("copy", 1, {{"in", a}}, {{"out", c}});
  }
  const std::vector<uint8_t> bytes = b.Finish();
  const std::string path = TempPath(two_signatures ? "two_signatures.tflite" : "add_sub.tflite");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

BenchmarkConfig SmallConfig(const std::string& graph) {
  BenchmarkConfig config;
  config.graph = graph;
  config.warmup = {1, 0.0f, 150.0f, -1.0f, -1.0f};
  config.regular = {5, 0.0f, 150.0f, -1.0f, -1.0f};
  return config;
}

// Records the order of the listener's calls.
class Recorder : public BenchmarkListener {
 public:
  void OnModelLoaded(const BenchmarkReport&) override { calls.push_back("loaded"); }
  void OnSignature(const std::string& key) override { calls.push_back("signature " + key); }
  void OnDelegateOutcome(const DelegateOutcome& o, bool) override { calls.push_back("delegate " + o.provider); }
  void OnInitialized(const BenchmarkReport&) override { calls.push_back("initialized"); }
  void OnBenchmarkStart(const BenchmarkReport&, Interpreter*) override { calls.push_back("start"); }
  void OnRunsStarting(RunKind kind, const RunLoopConfig&) override {
    calls.push_back(kind == RunKind::kWarmup ? "warmup" : "regular");
  }
  void OnRunsFinished(RunKind, const LatencyStats& stats) override {
    calls.push_back("finished " + std::to_string(stats.count()));
  }
  void OnBenchmarkEnd(const BenchmarkReport&, Interpreter*, const InputTarget& target) override {
    calls.push_back("end");
    const TfLiteTensor* out = target.subgraph->tensor(target.subgraph->outputs()[0]);
    const float* values = reinterpret_cast<const float*>(out->data.raw);
    output.assign(values, values + out->bytes / sizeof(float));
  }
  std::vector<std::string> calls;
  std::vector<float> output;
};

TEST(RunBenchmarkTest, FillsTheReportAndCallsTheListenerInOrder) {
  const std::string path = WriteModel(false);
  BenchmarkConfig config = SmallConfig(path);
  config.op_profiling = true;
  config.peak_memory = true;
  config.memory_interval_ms = 1;
  Recorder recorder;
  BenchmarkReport report;
  ASSERT_TRUE(RunBenchmark(config, {}, &recorder, &report).ok());
  EXPECT_EQ(recorder.calls, (std::vector<std::string>{"loaded", "signature add_sub", "initialized", "start", "warmup",
                                                      "finished 1", "regular", "finished 5", "end"}));
  EXPECT_EQ(report.warmup.count(), 1);
  EXPECT_EQ(report.regular.count(), 5);
  EXPECT_EQ(report.config.signature, "add_sub");
  EXPECT_EQ(report.config.execution_plan_nodes, 2);
  EXPECT_EQ(report.config.input_bytes, 32);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(report.envelope.model.size_bytes, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(report.envelope.model.sha256, Sha256Hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  // The envelope's configuration: the inputs as arrays, the signature among the settings.
  ASSERT_EQ(report.envelope.config.inputs.size(), 2u);
  EXPECT_EQ(report.envelope.config.inputs[0].type, "FLOAT32");
  EXPECT_EQ(report.envelope.config.inputs[0].source, "random");
  EXPECT_EQ(report.envelope.config.kernels, "optimized");
  EXPECT_FALSE(report.envelope.start_time.empty());
  EXPECT_FALSE(report.envelope.machine.isa.empty());
  EXPECT_GT(report.memory.arena_bytes, 0);
  EXPECT_TRUE(report.memory.os_figures);
  EXPECT_TRUE(report.memory.peak_sampled);
  EXPECT_GE(report.memory.peak_rss_bytes, report.memory.rss_start_bytes / 2);
  // (x + y) - x = y: the random second input comes back (float rounding aside).
  ASSERT_EQ(recorder.output.size(), 4u);
  ASSERT_TRUE(report.has_op_profile);
  ASSERT_EQ(report.op_profile.subgraphs.size(), 1u);
  ASSERT_EQ(report.op_profile.subgraphs[0].nodes.size(), 2u);
  EXPECT_EQ(report.op_profile.subgraphs[0].nodes[0].type, "ADD");
  EXPECT_EQ(report.op_profile.subgraphs[0].nodes[0].name, "[sum]:0");
  EXPECT_EQ(report.op_profile.subgraphs[0].nodes[1].times_called, 5);  // regular runs only
}

TEST(RunBenchmarkTest, JsonReportRoundTripsForTheGate) {
  const std::string path = WriteModel(false);
  BenchmarkReport report;
  ASSERT_TRUE(RunBenchmark(SmallConfig(path), {}, nullptr, &report).ok());
  const std::string text = ReportToJson(report);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["schema"], kBenchmarkReportSchema);
  EXPECT_EQ(j["schema_version"], kBenchmarkReportVersion);
  EXPECT_TRUE(j["configuration"]["inputs"][0]["shape"].is_array());
  EXPECT_EQ(j["latency"]["regular"]["count"], 5);
  EXPECT_EQ(j["latency"]["warmup"]["count"], 1);
  EXPECT_EQ(j["model"]["sha256"], report.envelope.model.sha256);
  EXPECT_EQ(j["memory"]["arena_bytes"], report.memory.arena_bytes);
  EXPECT_TRUE(j["op_profile"].is_null());
  auto baseline = ParseReportJson(text, "report.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status().message();
  ASSERT_EQ(baseline.value().regular.us.size(), 5u);
  EXPECT_EQ(baseline.value().regular.runs, 5);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(baseline.value().regular.us[i], static_cast<double>(report.regular.samples_ns()[i]) / 1000.0);
  }
  EXPECT_TRUE(ConfigDifferences(baseline.value().envelope, report.envelope).empty());
  EXPECT_EQ(baseline.value().arena_bytes, report.memory.arena_bytes);
  EXPECT_EQ(baseline.value().peak_rss_bytes, -1);  // not sampled
  EXPECT_EQ(ParseReportJson("{\"schema\": \"other\"}", "x.json").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseReportJson("not json", "x.json").status().code(), StatusCode::kInvalidInput);
  const nlohmann::json result = nlohmann::json::parse(ResultFileJson(report));
  EXPECT_EQ(result["misc_metrics"]["num_runs"], 5);
  EXPECT_DOUBLE_EQ(result["latency_metrics"]["avg_ms"].get<double>(), report.regular.mean_us() / 1000.0);
}

// TFLite's lines with figures that are not round: the averages and the footprint as iostream prints a
// double (or float) by default, six significant digits; the percentiles with three decimals.
TEST(RunBenchmarkTest, TfliteLinesKeepTheirDigits) {
  BenchmarkReport report;
  report.init_us = 20004;
  report.init_parts = {1, 20, 300, 19683};
  for (int64_t v : {1001, 1002, 1004}) report.warmup.Add(v);
  for (int64_t v : {1234567, 1234568}) report.regular.Add(v);
  EXPECT_EQ(FormatInferenceTimings(report),
            "Inference timings in us: Init: 20004, First inference: 1001, Warmup (avg): 1002.33, Inference (avg): "
            "1.23457e+06");
  EXPECT_EQ(FormatInitParts(report), "Init parts in us: load 1, build 20, prepare 300, allocate 19683");
  EXPECT_EQ(FormatPercentiles(report),
            "Inference latency in us (2 runs): min=1234567.000 avg=1234567.500 std=0.500 p5=1234567.000 "
            "p50=1234568.000 p90=1234568.000 p95=1234568.000 p99=1234568.000 max=1234568.000");
  BenchmarkReport fine;
  for (int64_t ns : {1000001, 2499999, 3000500}) fine.regular.Add(LatencySample{ns / 1000, ns});
  EXPECT_EQ(FormatSamples(fine), "Inference latency samples in us: 1000.001 2499.999 3000.500");
  BenchmarkReport::Memory& m = report.memory;
  m.os_figures = true;
  m.max_rss_start_bytes = 10 << 20;
  m.max_rss_after_init_bytes = (10 << 20) + 1234567;
  m.max_rss_end_bytes = (10 << 20) + 7654321;
  m.peak_sampled = true;
  m.peak_rss_bytes = 123456789;
  m.sample_interval_ms = 50;
  m.samples = 7;
  m.model_file_bytes = 1000000;
  m.weights_bytes = 999424;
  m.weights_released_bytes = 995328;
  m.arena_bytes = 12345;
  m.rss_start_bytes = m.rss_after_init_bytes = m.rss_end_bytes = 3 << 20;
  const std::vector<std::string> tflite = FormatTfliteMemoryLines(report);
  ASSERT_EQ(tflite.size(), 3u);
  EXPECT_EQ(tflite[1], "Memory footprint delta from the start of the tool (MB): init=1.17676 overall=7.29883");
  EXPECT_EQ(tflite[2], "Overall peak memory footprint (MB) via periodic monitoring: 117.738");
  const std::vector<std::string> ours = FormatMemoryLines(report);
  ASSERT_EQ(ours.size(), 7u);
  EXPECT_EQ(ours[0],
            "Memory, model file: 0.95 MB (1000000 bytes, mapped read-only); of which weights (constant buffers): "
            "0.95 MB (999424 bytes)");
  EXPECT_EQ(ours[1],
            "Memory, weights read only from a kernel's copy (their pages of the model file unmapped): 0.95 MB "
            "(995328 bytes)");
  EXPECT_EQ(ours[2], "Memory, tensor arena (planned at AllocateTensors, all subgraphs): 0.01 MB (12345 bytes)");
  EXPECT_EQ(ours[4],
            "Memory, process RSS now (resident, /proc/self/statm): start 3.00 MB, after init 3.00 MB, end 3.00 MB");
  EXPECT_EQ(ours[6], "Memory, peak process RSS sampled every 50 ms on its own thread: 117.74 MB (7 samples)");
  // Printed when weights computed at Prepare were given back.
  m.prepared_weights_released_bytes = 3424256;
  const std::vector<std::string> expanded = FormatMemoryLines(report);
  ASSERT_EQ(expanded.size(), 8u);
  EXPECT_EQ(expanded[2],
            "Memory, weights expanded at Prepare (float16, sparse) given back once kernels copied them: 3.27 MB "
            "(3424256 bytes)");
}

TEST(RunBenchmarkTest, TextLinesAreViewsOfTheReport) {
  BenchmarkReport report;
  report.init_us = 1234;
  for (int64_t v : {500, 300}) report.warmup.Add(v);
  for (int64_t v : {100, 200, 300, 400}) report.regular.Add(v);
  EXPECT_EQ(FormatInferenceTimings(report),
            "Inference timings in us: Init: 1234, First inference: 500, Warmup (avg): 400, Inference (avg): 250");
  EXPECT_EQ(FormatPercentiles(report),
            "Inference latency in us (4 runs): min=100.000 avg=250.000 std=111.803 p5=100.000 p50=300.000 p90=400.000 "
            "p95=400.000 p99=400.000 max=400.000");
  EXPECT_EQ(FormatSamples(report), "Inference latency samples in us: 100.000 200.000 300.000 400.000");
  // Sub-microsecond runs keep their resolution in Touchstone's line.
  BenchmarkReport fast;
  for (int64_t ns : {381, 412, 443}) fast.regular.Add(LatencySample{0, ns});
  EXPECT_EQ(FormatPercentiles(fast),
            "Inference latency in us (3 runs): min=0.381 avg=0.412 std=0.025 p5=0.381 p50=0.412 p90=0.443 p95=0.443 "
            "p99=0.443 max=0.443");
  report.memory.os_figures = true;
  report.memory.max_rss_start_bytes = 10 << 20;
  report.memory.max_rss_after_init_bytes = (10 << 20) + (3 << 19);  // + 1.5 MB
  report.memory.max_rss_end_bytes = (10 << 20) + (2 << 20);         // + 2 MB
  const std::vector<std::string> lines = FormatTfliteMemoryLines(report);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "Memory footprint delta from the start of the tool (MB): init=1.5 overall=2");
}

TEST(RunBenchmarkTest, DryRunRunsNothing) {
  BenchmarkConfig config = SmallConfig(WriteModel(false));
  config.dry_run = true;
  BenchmarkReport report;
  ASSERT_TRUE(RunBenchmark(config, {}, nullptr, &report).ok());
  EXPECT_EQ(report.warmup.count(), 0);
  EXPECT_EQ(report.regular.count(), 0);
  EXPECT_EQ(report.config.num_runs, 0);
  EXPECT_FLOAT_EQ(static_cast<float>(report.config.min_secs), -1.0f);
}

TEST(RunBenchmarkTest, SeveralSignaturesWithoutAChoiceRunThePrimarySubgraph) {
  const std::string path = WriteModel(true);
  BenchmarkReport report;
  class Warnings : public BenchmarkListener {
   public:
    void OnWarning(const std::string& message) override { messages.push_back(message); }
    std::vector<std::string> messages;
  } warnings;
  ASSERT_TRUE(RunBenchmark(SmallConfig(path), {}, &warnings, &report).ok());
  EXPECT_EQ(report.config.subgraph, 0);
  EXPECT_EQ(report.config.signature, "");
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find("2 signatures (add_sub, copy)"), std::string::npos) << warnings.messages[0];
  BenchmarkConfig config = SmallConfig(path);
  config.signature = "copy";
  // The signature's input name reaches the tensor.
  config.inputs.value_ranges["in"] = {3, 3};
  Recorder recorder;
  BenchmarkReport copy;
  ASSERT_TRUE(RunBenchmark(config, {}, &recorder, &copy).ok());
  EXPECT_EQ(copy.config.subgraph, 1);
  EXPECT_EQ(copy.config.execution_plan_nodes, 1);
  EXPECT_FLOAT_EQ(recorder.output[0], 3.0f);
  config.signature = "nope";
  EXPECT_EQ(RunBenchmark(config, {}, nullptr, &report).code(), StatusCode::kUsage);
  auto keys = ListSignatures(path, InterpreterOptions());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys.value(), (std::vector<std::string>{"add_sub", "copy"}));
}

TEST(RunBenchmarkTest, DelegateKernelProfilesAsOneNode) {
  const std::string path = WriteModel(false);
  ProvidedDelegate sample;
  sample.provider = "SAMPLE";
  sample.delegate = TfLiteDelegatePtr(TfLiteSampleDelegateCreate(nullptr), TfLiteSampleDelegateDelete);
  std::vector<ProvidedDelegate> delegates;
  delegates.push_back(std::move(sample));
  BenchmarkConfig config = SmallConfig(path);
  config.op_profiling = true;
  config.require_full_delegation = true;
  BenchmarkReport report;
  ASSERT_TRUE(RunBenchmark(config, delegates, nullptr, &report).ok());
  ASSERT_EQ(report.envelope.config.delegates.size(), 1u);
  EXPECT_TRUE(report.envelope.config.delegates[0].fully_delegated);
  EXPECT_TRUE(report.config.fully_delegated);
  ASSERT_EQ(report.op_profile.subgraphs.size(), 1u);
  ASSERT_EQ(report.op_profile.subgraphs[0].nodes.size(), 1u);
  EXPECT_EQ(report.op_profile.subgraphs[0].nodes[0].type, kSampleDelegateName);
  EXPECT_TRUE(report.op_profile.subgraphs[0].nodes[0].delegate);
}

TEST(RunBenchmarkTest, GraphFromADescriptor) {
  const std::string path = WriteModel(false);
  const int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const long long size = static_cast<long long>(in.tellg());
  auto model = LoadBenchmarkModel("fd:" + std::to_string(fd) + ":0:" + std::to_string(size));
  EXPECT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(LoadBenchmarkModel("fd:" + std::to_string(fd) + ":0").status().code(), StatusCode::kUsage);
  EXPECT_EQ(LoadBenchmarkModel("fd:" + std::to_string(fd) + ":0:" + std::to_string(size + 100)).status().code(),
            StatusCode::kInvalidInput);
  close(fd);
}

TEST(InterpreterStateTest, ListsTensorsNodesAndPlan) {
  const std::string path = WriteModel(false);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  auto interpreter = Interpreter::Create(model.value(), InterpreterOptions());
  ASSERT_TRUE(interpreter.ok());
  ASSERT_TRUE(interpreter.value()->AllocateTensors().ok());
  const std::string text = DescribeInterpreterState(interpreter.value().get(), InterpreterStateFormat());
  EXPECT_NE(text.find("Interpreter has 1 subgraphs.\n"), std::string::npos) << text;
  EXPECT_NE(text.find("-----------Subgraph-0 has 4 tensors and 2 nodes------------\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2 Inputs: [0,1] -> 32B (0.00MB)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Node   1 Operator Builtin Code  41 SUB (not delegated)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Execution plan as the list of 2 nodes invoked in-order: [0,1]\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace touchstone
