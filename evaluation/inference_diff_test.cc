// The inference_diff stage: TFLite's input generator, reference against itself (exactly 0), against
// the sample delegate (exactly 0: it is byte-equal to the reference kernels), against a deliberately
// wrong sample delegate (FAIL, and --layerwise names the perturbed op and its inputs' errors), the
// report, bad inputs; and over every golden model in ../shared, reference against reference and against
// the sample delegate, every output and every tensor exactly equal.
#include "evaluation/inference_diff.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "delegates/sample/sample_delegate.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

TfLiteDelegatePtr SampleDelegate(float perturb = 0.0f, int perturb_node = -1) {
  SampleDelegateOptions options;
  options.perturb = perturb;
  options.perturb_node = perturb_node;
  return TfLiteDelegatePtr(TfLiteSampleDelegateCreate(&options), TfLiteSampleDelegateDelete);
}

std::vector<ProvidedDelegate> Sample(float perturb = 0.0f, int perturb_node = -1) {
  std::vector<ProvidedDelegate> delegates;
  ProvidedDelegate d;
  d.provider = "SAMPLE";
  d.delegate = SampleDelegate(perturb, perturb_node);
  delegates.push_back(std::move(d));
  return delegates;
}

// x[2,4] float:
//   op 0: t0 = ADD(x, c1)      sample delegate
//   op 1: t1 = MUL(t0, c2)     CPU
//   op 2: t2 = ADD(t1, c3)     sample delegate
//   op 3: t3 = MUL(t2, c2)     CPU
//   op 4: out = SUB(t3, t0)    sample delegate
// Every delegated op is a partition of its own, so each one's output is materialised.
std::shared_ptr<const Model> ChainModel() {
  ModelBuilder b;
  const int x = b.AddTensor(kTfLiteFloat32, {2, 4}, "x");
  const int c1 = b.AddConstTensor<float>(kTfLiteFloat32, {4}, {0.5f, -1.0f, 2.0f, 0.25f}, "c1");
  const int c2 = b.AddConstTensor<float>(kTfLiteFloat32, {4}, {1.5f, 0.5f, -2.0f, 3.0f}, "c2");
  const int c3 = b.AddConstTensor<float>(kTfLiteFloat32, {4}, {-0.75f, 1.0f, 0.125f, 4.0f}, "c3");
  const int t0 = b.AddTensor(kTfLiteFloat32, {2, 4}, "t0");
  const int t1 = b.AddTensor(kTfLiteFloat32, {2, 4}, "t1");
  const int t2 = b.AddTensor(kTfLiteFloat32, {2, 4}, "t2");
  const int t3 = b.AddTensor(kTfLiteFloat32, {2, 4}, "t3");
  const int out = b.AddTensor(kTfLiteFloat32, {2, 4}, "out");
  auto add = [&](int a, int c, int o) {
    b.AddOperator(kTfLiteBuiltinAdd, {a, c}, {o}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(b.fbb()).Union());
  };
  auto mul = [&](int a, int c, int o) {
    b.AddOperator(kTfLiteBuiltinMul, {a, c}, {o}, fb::BuiltinOptions::MulOptions,
                  fb::CreateMulOptions(b.fbb()).Union());
  };
  add(x, c1, t0);
  mul(t0, c2, t1);
  add(t1, c3, t2);
  mul(t2, c2, t3);
  b.AddOperator(kTfLiteBuiltinSub, {t3, t0}, {out}, fb::BuiltinOptions::SubOptions,
                fb::CreateSubOptions(b.fbb()).Union());
  b.SetInputs({x});
  b.SetOutputs({out});
  auto model = Model::FromBuffer(b.Finish(), "chain.tflite");
  EXPECT_TRUE(model.ok());
  return model.value();
}

// x[4]: op 0: t0 = ADD(x, c); op 1: out = ADD(t0, c) — one partition, t0 stays inside it.
std::shared_ptr<const Model> PairModel() {
  ModelBuilder b;
  const int x = b.AddTensor(kTfLiteFloat32, {4}, "x");
  const int c = b.AddConstTensor<float>(kTfLiteFloat32, {4}, {1, 2, 3, 4}, "c");
  const int t0 = b.AddTensor(kTfLiteFloat32, {4}, "t0");
  const int out = b.AddTensor(kTfLiteFloat32, {4}, "out");
  b.AddOperator(kTfLiteBuiltinAdd, {x, c}, {t0}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinAdd, {t0, c}, {out}, fb::BuiltinOptions::AddOptions,
                fb::CreateAddOptions(b.fbb()).Union());
  b.SetInputs({x});
  b.SetOutputs({out});
  auto model = Model::FromBuffer(b.Finish(), "pair.tflite");
  EXPECT_TRUE(model.ok());
  return model.value();
}

InferenceDiffConfig Quick(bool layerwise) {
  InferenceDiffConfig config;
  config.num_runs = 4;
  config.layerwise = layerwise;
  config.test_kernel_set = KernelSet::kReference;
  return config;
}

InferenceDiffResult MustRun(const std::shared_ptr<const Model>& model, const InferenceDiffConfig& config,
                            const std::vector<ProvidedDelegate>& delegates) {
  ::testing::internal::CaptureStderr();  // the runtime's partition lines
  StatusOr<InferenceDiffResult> r = RunInferenceDiff(model, config, delegates);
  ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : InferenceDiffResult();
}

TEST(GaussianInputGeneratorTest, TFLitesDistributionAndScaling) {
  // What TFLite's GenerateRandomGaussianData<float> draws, written out again here.
  std::default_random_engine engine;
  std::normal_distribution<double> distribution(0.5f, static_cast<float>(1.0 / 3));
  std::vector<float> expected;
  for (int i = 0; i < 1000; ++i) {
    double r = distribution(engine);
    while (r < 0 || r >= 1) r = distribution(engine);
    expected.push_back(-1.0f + 2.0f * static_cast<float>(r));
  }
  GaussianInputGenerator generator;
  std::vector<uint8_t> a, b;
  // Another type in between does not disturb float's sequence (TFLite's statics are per C++ type).
  ASSERT_TRUE(generator.Fill(kTfLiteFloat32, 600, &a).ok());
  ASSERT_TRUE(generator.Fill(kTfLiteInt8, 37, &b).ok());
  ASSERT_TRUE(generator.Fill(kTfLiteFloat32, 400, &b).ok());
  std::vector<float> got(1000);
  std::memcpy(got.data(), a.data(), 600 * 4);
  std::memcpy(got.data() + 600, b.data(), 400 * 4);
  EXPECT_EQ(got, expected);
  double sum = 0;
  for (float v : got) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / got.size(), 0.0, 0.05);  // mean 0.5 of [0,1) scaled to [-1,1]
}

TEST(GaussianInputGeneratorTest, IntegerRangesSeedsAndHalves) {
  GaussianInputGenerator generator(7);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(generator.Fill(kTfLiteUInt8, 5000, &bytes).ok());
  int low = 255, high = 0;
  for (uint8_t v : bytes) low = std::min<int>(low, v), high = std::max<int>(high, v);
  EXPECT_LT(low, 20);
  EXPECT_GT(high, 235);
  ASSERT_TRUE(generator.Fill(kTfLiteInt8, 5000, &bytes).ok());
  int8_t lo8 = 127, hi8 = -128;
  for (uint8_t v : bytes) lo8 = std::min(lo8, static_cast<int8_t>(v)), hi8 = std::max(hi8, static_cast<int8_t>(v));
  EXPECT_LT(lo8, -100);
  EXPECT_GT(hi8, 100);
  for (TfLiteType type : {kTfLiteInt16, kTfLiteInt32, kTfLiteInt64, kTfLiteUInt32, kTfLiteBool, kTfLiteFloat64}) {
    EXPECT_TRUE(generator.Fill(type, 100, &bytes).ok()) << TypeName(type);
  }
  EXPECT_EQ(generator.Fill(kTfLiteString, 1, &bytes).code(), StatusCode::kInvalidInput);

  // Same seed, same values; another seed, others.
  GaussianInputGenerator one(1), again(1), other(2);
  std::vector<uint8_t> x, y, z;
  ASSERT_TRUE(one.Fill(kTfLiteFloat32, 64, &x).ok());
  ASSERT_TRUE(again.Fill(kTfLiteFloat32, 64, &y).ok());
  ASSERT_TRUE(other.Fill(kTfLiteFloat32, 64, &z).ok());
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);

  // float16 inputs: float32 values rounded to the nearest half.
  GaussianInputGenerator floats, halves;
  std::vector<uint8_t> f, h;
  ASSERT_TRUE(floats.Fill(kTfLiteFloat32, 256, &f).ok());
  ASSERT_TRUE(halves.Fill(kTfLiteFloat16, 256, &h).ok());
  ASSERT_EQ(h.size(), 512u);
  for (int i = 0; i < 256; ++i) {
    float v;
    uint16_t bits;
    std::memcpy(&v, f.data() + 4 * i, 4);
    std::memcpy(&bits, h.data() + 2 * i, 2);
    const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    double half = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(mantissa + 1024, exponent - 25);
    if (bits & 0x8000) half = -half;
    EXPECT_LE(std::fabs(half - v), std::ldexp(std::fabs(v), -11) + 1e-8) << i;
  }
}

TEST(InferenceDiffTest, ReferenceAgainstItselfIsExactlyZero) {
  InferenceDiffResult r = MustRun(ChainModel(), Quick(true), {});
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.num_runs, 4);
  EXPECT_EQ(r.reference_latency.count(), 12);  // 3 invocations per run
  EXPECT_EQ(r.test_latency.count(), 12);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].diff.avg_error, 0.0);
  EXPECT_EQ(r.outputs[0].diff.max_abs_error, 0.0);
  EXPECT_EQ(r.outputs[0].diff.runs, 4);
  ASSERT_EQ(r.layers.size(), 5u);
  for (size_t i = 0; i < r.layers.size(); ++i) {
    EXPECT_EQ(r.layers[i].node, static_cast<int>(i));
    EXPECT_EQ(r.layers[i].diff.max_abs_error, 0.0);
    EXPECT_FALSE(r.layers[i].delegated);
  }
  EXPECT_EQ(r.first_divergence, -1);
  const std::string text = FormatInferenceDiff(r);
  for (const char* line :
       {"Num evaluation runs: 4\n", "Reference run latency: avg=", "(us), std_dev=", "Test run latency: avg=",
        "OutputDiff[0]: avg_error=0, std_dev=0\n", "No tensor differs.\n", "\nverdict: none (no thresholds given)\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  // No threshold, no verdict: never a PASS, and exit 0.
  EXPECT_FALSE(r.checked);
  EXPECT_EQ(text.find("PASS"), std::string::npos) << text;
  EXPECT_EQ(InferenceDiffExitCode(r), 0);
  const nlohmann::json j = nlohmann::json::parse(InferenceDiffJson(r));
  EXPECT_EQ(j["verdict"], "NONE");
  EXPECT_EQ(j["configuration"]["kernels"], "reference");
  EXPECT_EQ(j["configuration"]["settings"]["num_runs"], "4");
}

TEST(InferenceDiffTest, QualifyAppliesDefaultsByType) {
  const DiffThresholds f = QualifyThresholds(kTfLiteFloat32, false, kQualifyFloat32Tolerance);
  EXPECT_EQ(DescribeThresholds(f), "max |diff| <= 1e-05 x max |reference|");
  EXPECT_EQ(DescribeThresholds(QualifyThresholds(kTfLiteUInt8, true, 1e-5)), "max |diff| <= 1 step");
  EXPECT_EQ(DescribeThresholds(QualifyThresholds(kTfLiteInt32, false, 1e-5)), "exact");
  EXPECT_EQ(DescribeThresholds(QualifyThresholds(kTfLiteBool, false, 1e-5)), "exact");
  // The breach names the default, not a flag.
  TensorDiffSummary d;
  d.max_relative_error = 2e-5;
  EXPECT_EQ(DescribeBreach(d, f), "max_relative_error=2e-05 > 1e-05 (--qualify's default)");
  d.max_relative_error = 1e-5;
  EXPECT_EQ(DescribeBreach(d, f), "");

  // A delegate biasing one ADD by 0.5 fails --qualify; the exact one passes.
  InferenceDiffConfig config = Quick(false);
  config.qualify = true;
  InferenceDiffResult exact = MustRun(ChainModel(), config, Sample());
  EXPECT_TRUE(exact.checked);
  EXPECT_TRUE(exact.passed) << exact.failure;
  InferenceDiffResult biased = MustRun(ChainModel(), config, Sample(0.5f, 2));
  EXPECT_FALSE(biased.passed);
  EXPECT_NE(biased.failure.find("max_relative_error="), std::string::npos) << biased.failure;
  EXPECT_EQ(InferenceDiffExitCode(biased), 1);
  const std::string text = FormatInferenceDiff(biased);
  EXPECT_NE(text.find("Qualify threshold OutputDiff[0] 'out' float32: max |diff| <= 1e-05 x max |reference|\n"),
            std::string::npos)
      << text;
}

TEST(InferenceDiffTest, ErrorGateAgainstABaselineReport) {
  InferenceDiffResult exact = MustRun(ChainModel(), Quick(false), Sample());
  const StatusOr<InferenceDiffBaseline> baseline = ParseInferenceDiffJson(InferenceDiffJson(exact), "exact.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status().message();
  ASSERT_EQ(baseline.value().outputs.size(), 1u);
  EXPECT_EQ(baseline.value().outputs[0].max_abs_error, 0.0);
  InferenceDiffResult biased = MustRun(ChainModel(), Quick(false), Sample(0.5f, 2));
  EXPECT_TRUE(ConfigDifferences(baseline.value().envelope, biased.envelope).empty());
  biased.gate.requested = true;
  biased.gate.errors = CompareOutputErrors(baseline.value().outputs, OutputErrorsOf(biased), 10.0);
  EXPECT_EQ(biased.gate.errors.verdict, GateVerdict::kRegression);
  EXPECT_EQ(InferenceDiffExitCode(biased), 1);
  EXPECT_NE(FormatInferenceDiff(biased).find("\nGate verdict: REGRESSION (exit code 1)\n"), std::string::npos);
  EXPECT_EQ(ParseInferenceDiffJson("{}", "x.json").status().code(), StatusCode::kInvalidInput);
}

TEST(InferenceDiffTest, SampleDelegateIsExact) {
  InferenceDiffConfig config = Quick(true);
  config.thresholds.max_abs_error = 0.0;
  InferenceDiffResult r = MustRun(ChainModel(), config, Sample());
  ASSERT_EQ(r.delegates.size(), 1u);
  EXPECT_TRUE(r.delegates[0].applied);
  EXPECT_EQ(r.delegates[0].delegate_kernels, 3);
  EXPECT_TRUE(r.passed) << r.failure;
  ASSERT_EQ(r.layers.size(), 5u);
  EXPECT_TRUE(r.layers[0].delegated);
  EXPECT_FALSE(r.layers[1].delegated);
  EXPECT_EQ(r.layers[0].delegate_name, "SampleDelegate");
  EXPECT_EQ(r.outputs[0].diff.max_abs_error, 0.0);
  // And with the optimized kernels on the CPU side: small errors at most, no FAIL at a loose threshold.
  config.test_kernel_set = KernelSet::kOptimized;
  config.thresholds.max_abs_error = 1e-5;
  InferenceDiffResult optimized = MustRun(ChainModel(), config, Sample());
  EXPECT_TRUE(optimized.passed) << optimized.failure;
}

TEST(InferenceDiffTest, PerturbedDelegateFailsAndLayerwiseNamesTheOp) {
  InferenceDiffConfig config = Quick(true);
  config.thresholds.max_abs_error = 1e-3;
  InferenceDiffResult r = MustRun(ChainModel(), config, Sample(0.5f, 2));
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.first_divergence, 2);
  const LayerDiffEntry& l = r.layers[2];
  EXPECT_EQ(l.node, 2);
  EXPECT_EQ(l.op, "ADD");
  EXPECT_TRUE(l.delegated);
  EXPECT_EQ(l.name, "t2");
  EXPECT_FLOAT_EQ(l.diff.max_abs_error, 0.5);
  EXPECT_NE(r.failure.find("op 2 (ADD, in SampleDelegate kernel node"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("output tensor 6 't2': max_abs_error=0.5 > --max_abs_error=0.001"), std::string::npos)
      << r.failure;
  ASSERT_EQ(r.divergence_inputs.size(), 2u);
  EXPECT_EQ(r.divergence_inputs[0].name, "t1");
  EXPECT_EQ(r.divergence_inputs[0].kind, "compared");
  EXPECT_EQ(r.divergence_inputs[0].diff.max_abs_error, 0.0);
  EXPECT_EQ(r.divergence_inputs[1].name, "c3");
  EXPECT_EQ(r.divergence_inputs[1].kind, "constant");
  // Earlier ops are untouched.
  EXPECT_EQ(r.layers[0].diff.max_abs_error, 0.0);
  EXPECT_EQ(r.layers[1].diff.max_abs_error, 0.0);
  const std::string text = FormatInferenceDiff(r);
  EXPECT_NE(text.find("First diverging op: op 2 (ADD"), std::string::npos) << text;
  EXPECT_NE(text.find("  input tensor 5 't1': avg_error=0, max_abs_error=0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nFAIL: op 2 (ADD"), std::string::npos) << text;
  EXPECT_EQ(text.find("PASS"), std::string::npos);

  // Without --layerwise the output is named; the error is stable across runs.
  InferenceDiffResult outputs_only = MustRun(ChainModel(), Quick(false), Sample(0.5f, 2));
  EXPECT_FALSE(outputs_only.checked);  // no thresholds: nothing to fail, nothing passes
  EXPECT_FLOAT_EQ(outputs_only.outputs[0].diff.avg_error,
                  0.5f * 1.5f / 4 + 0.5f * 0.5f / 4 + 0.5f * 2.0f / 4 + 0.5f * 3.0f / 4);
  EXPECT_NEAR(outputs_only.outputs[0].diff.std_dev, 0.0, 1e-6);
  config.layerwise = false;
  config.thresholds.max_abs_error = -1;
  config.thresholds.max_avg_error = 0.01;
  InferenceDiffResult failed = MustRun(ChainModel(), config, Sample(0.5f, 2));
  EXPECT_FALSE(failed.passed);
  EXPECT_EQ(failed.failure.find("OutputDiff[0] tensor 8 'out': avg_error="), 0u) << failed.failure;
  // --min_cosine: a bias on every op moves the direction too.
  config.thresholds.max_avg_error = -1;
  config.thresholds.min_cosine = 0.999999;
  InferenceDiffResult cosine = MustRun(ChainModel(), config, Sample(3.0f));
  EXPECT_FALSE(cosine.passed);
  EXPECT_NE(cosine.failure.find("< --min_cosine="), std::string::npos) << cosine.failure;

  // No thresholds, --layerwise: the first op that differs is named, as information.
  InferenceDiffResult info = MustRun(ChainModel(), Quick(true), Sample(0.5f, 4));
  EXPECT_FALSE(info.checked);
  ASSERT_EQ(info.first_divergence, 4);
  EXPECT_FALSE(info.divergence_is_breach);
  EXPECT_NE(FormatInferenceDiff(info).find("First op that differs: op 4 (SUB"), std::string::npos);
}

// Shards of the runs, each from its own interpreters, merged: the single run's report, figure for figure.
TEST(InferenceDiffTest, MergedShardsEqualTheSingleRun) {
  InferenceDiffConfig config = Quick(true);
  config.num_runs = 5;
  config.thresholds.max_abs_error = 1e-3;
  const InferenceDiffResult whole = MustRun(ChainModel(), config, Sample(0.5f, 2));
  const nlohmann::json expected = nlohmann::json::parse(InferenceDiffJson(whole));
  for (int count : {1, 3, 7}) {
    std::vector<ShardReport> shards;
    for (int index = 0; index < count; ++index) {
      InferenceDiffConfig part = config;
      part.shard = ShardSpecFromFlags(index, count).value();
      const InferenceDiffResult r = MustRun(ChainModel(), part, Sample(0.5f, 2));
      EXPECT_EQ(r.envelope.shard.index, index);
      ShardReport report;
      report.path = "shard" + std::to_string(index) + ".json";
      report.json = nlohmann::ordered_json::parse(InferenceDiffJson(r));
      EXPECT_TRUE(report.json["outputs"][0].contains("shard_state"));
      shards.push_back(report);
    }
    ASSERT_TRUE(CheckShardReports(2, &shards).ok());
    StatusOr<InferenceDiffResult> merged = MergeInferenceDiffShards(shards);
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_EQ(merged.value().failure, whole.failure);
    const nlohmann::json got = nlohmann::json::parse(InferenceDiffJson(merged.value()));
    for (const char* key :
         {"num_runs", "seed", "outputs", "layerwise", "verdict", "failure", "configuration", "model"}) {
      nlohmann::json a = expected[key], b = got[key];
      if (std::string(key) == "configuration") a.erase("flags"), b.erase("flags");
      EXPECT_EQ(a.dump(), b.dump()) << key << " with " << count << " shards";
    }
    EXPECT_EQ(got["reference"]["latency"]["count"], 15);  // 5 runs of 3 invocations
    EXPECT_EQ(got["merged"]["shards"], count);
  }
}

TEST(InferenceDiffTest, TensorsInsideAPartitionAreNotMaterialised) {
  InferenceDiffConfig config = Quick(true);
  config.thresholds.max_abs_error = 1e-3;
  InferenceDiffResult r = MustRun(PairModel(), config, Sample(0.25f, 0));
  EXPECT_EQ(r.tensors_inside_partitions, 1);
  ASSERT_EQ(r.layers.size(), 1u);
  ASSERT_EQ(r.first_divergence, 0);
  EXPECT_EQ(r.layers[0].node, 1);  // the partition's output, written by op 1
  ASSERT_EQ(r.divergence_inputs.size(), 2u);
  EXPECT_EQ(r.divergence_inputs[0].name, "t0");
  EXPECT_EQ(r.divergence_inputs[0].kind, "inside the delegated partition");
  EXPECT_NE(FormatInferenceDiff(r).find("1 more stay inside delegated partitions"), std::string::npos);
}

TEST(InferenceDiffTest, ReportIsJsonOfTheSameResult) {
  InferenceDiffConfig config = Quick(true);
  config.thresholds.max_abs_error = 1e-3;
  InferenceDiffResult r = MustRun(ChainModel(), config, Sample(0.5f, 2));
  const nlohmann::json j = nlohmann::json::parse(InferenceDiffJson(r));
  EXPECT_EQ(j["tool"], "inference_diff");
  EXPECT_EQ(j["num_runs"], 4);
  EXPECT_EQ(j["invocations_per_run"], 3);
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["failure"], r.failure);
  EXPECT_EQ(j["thresholds"]["max_abs_error"], 1e-3);
  EXPECT_TRUE(j["thresholds"]["max_avg_error"].is_null());
  EXPECT_EQ(j["reference"]["latency"]["count"], 12);
  EXPECT_EQ(j["configuration"]["delegates"][0]["provider"], "SAMPLE");
  EXPECT_EQ(j["outputs"][0]["name"], "out");
  EXPECT_DOUBLE_EQ(j["outputs"][0]["avg_error"].get<double>(), r.outputs[0].diff.avg_error);
  EXPECT_EQ(j["layerwise"]["tensors"].size(), 5u);
  EXPECT_EQ(j["layerwise"]["first_divergence"]["node"], 2);
  EXPECT_EQ(j["layerwise"]["first_divergence"]["inputs"][1]["kind"], "constant");
  EXPECT_EQ(j["layerwise"]["tensors"][2]["delegate"]["name"], "SampleDelegate");
}

TEST(InferenceDiffTest, FixedInputsAndBadInputs) {
  InferenceDiffConfig config = Quick(false);
  std::vector<float> values(8, 0.5f);
  InferenceDiffConfig::FixedInput input;
  input.bytes.resize(32);
  std::memcpy(input.bytes.data(), values.data(), 32);
  input.source = "x.bin";
  config.fixed_inputs["x"] = input;
  InferenceDiffResult r = MustRun(ChainModel(), config, {});
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].name, "x");
  EXPECT_EQ(r.inputs[0].source, "x.bin");
  EXPECT_NE(FormatInferenceDiff(r).find("Inputs: 'x' x.bin."), std::string::npos);

  config.fixed_inputs["x"].bytes.resize(31);
  StatusOr<InferenceDiffResult> short_file = RunInferenceDiff(ChainModel(), config, {});
  ASSERT_FALSE(short_file.ok());
  EXPECT_EQ(short_file.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(short_file.status().message(), "x.bin: has 31 bytes but input 'x' (float32 [2,4]) needs 32");
  config.fixed_inputs.clear();
  config.fixed_inputs["y"] = input;
  StatusOr<InferenceDiffResult> unknown = RunInferenceDiff(ChainModel(), config, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kUsage);
  EXPECT_NE(unknown.status().message().find("no input named 'y'"), std::string::npos);
  config.fixed_inputs.clear();
  config.num_runs = 0;
  EXPECT_EQ(RunInferenceDiff(ChainModel(), config, {}).status().code(), StatusCode::kUsage);
}

TEST(InferenceDiffTest, BreachRules) {
  TensorDiffSummary d;
  d.avg_error = 0.2;
  d.max_abs_error = 1.0;
  d.cosine_similarity = 0.9;
  DiffThresholds off;
  EXPECT_EQ(DescribeBreach(d, off), "");
  DiffThresholds t;
  t.max_avg_error = 0.2;
  EXPECT_EQ(DescribeBreach(d, t), "");  // equal is within
  t.max_avg_error = 0.1;
  EXPECT_EQ(DescribeBreach(d, t), "avg_error=0.2 > --max_avg_error=0.1");
  d.avg_error = NAN;
  EXPECT_NE(DescribeBreach(d, t), "");  // NaN never passes
  DiffThresholds c;
  c.min_cosine = 0.95;
  EXPECT_EQ(DescribeBreach(d, c), "cosine_similarity=0.9 < --min_cosine=0.95");
}

// --- Every golden model in ../shared: reference against reference, and against the sample delegate on
// the reference kernels, with the golden inputs and --layerwise: every output and tensor exactly equal.

std::vector<std::string> GoldenFolders(const std::string& shared) {
  std::vector<std::string> folders;
  const std::string root = shared + "/golden";
  DIR* top = opendir(root.c_str());
  if (top == nullptr) return folders;
  while (dirent* group = readdir(top)) {
    const std::string g = group->d_name;
    if (g == "." || g == "..") continue;
    DIR* inner = opendir((root + "/" + g).c_str());
    if (inner == nullptr) continue;
    while (dirent* model = readdir(inner)) {
      const std::string m = model->d_name;
      if (m == "." || m == "..") continue;
      if (std::ifstream(root + "/" + g + "/" + m + "/meta.json").good()) folders.push_back(g + "/" + m);
    }
    closedir(inner);
  }
  closedir(top);
  std::sort(folders.begin(), folders.end());
  return folders;
}

TEST(InferenceDiffGoldenTest, ReferenceAgainstItselfAndTheSampleDelegateIsExactlyZero) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::vector<std::string> folders = GoldenFolders(shared);
  ASSERT_FALSE(folders.empty());
  int ran = 0, tensors = 0, delegated_models = 0, delegate_kernels = 0;
  for (const std::string& folder : folders) {
    SCOPED_TRACE(folder);
    const std::string dir = shared + "/golden/" + folder;
    std::ifstream meta_file(dir + "/meta.json");
    const nlohmann::json meta = nlohmann::json::parse(meta_file);
    const std::string group = folder.substr(0, folder.find('/'));
    auto model = Model::FromFile(shared + "/models/" + group + "/" + meta["model"].get<std::string>());
    ASSERT_TRUE(model.ok()) << model.status().message();
    InferenceDiffConfig config;
    config.num_runs = 1;
    config.invocations_per_run = 1;
    config.layerwise = true;
    config.test_kernel_set = KernelSet::kReference;
    config.thresholds.max_abs_error = 0.0;
    for (const auto& input : meta["inputs"]) {
      std::ifstream in(dir + "/" + input["file"].get<std::string>(), std::ios::binary);
      InferenceDiffConfig::FixedInput fixed;
      fixed.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      fixed.source = input["file"].get<std::string>();
      config.fixed_inputs[input["name"].get<std::string>()] = fixed;
    }
    for (bool with_sample : {false, true}) {
      SCOPED_TRACE(with_sample ? "reference + sample delegate" : "reference");
      std::vector<ProvidedDelegate> delegates;
      if (with_sample) delegates = Sample();
      InferenceDiffResult r = MustRun(model.value(), config, delegates);
      EXPECT_TRUE(r.passed) << r.failure;
      for (const OutputDiffEntry& o : r.outputs) {
        EXPECT_TRUE(o.mismatch.empty()) << o.mismatch;
        EXPECT_EQ(o.diff.avg_error, 0.0) << o.name;
        EXPECT_EQ(o.diff.max_abs_error, 0.0) << o.name;
      }
      for (const LayerDiffEntry& l : r.layers) {
        EXPECT_EQ(l.diff.max_abs_error, 0.0) << l.op << " " << l.name;
      }
      EXPECT_EQ(r.first_divergence, -1);
      tensors += static_cast<int>(r.layers.size());
      if (with_sample && !r.delegates.empty() && r.delegates[0].delegate_kernels > 0) {
        ++delegated_models;
        delegate_kernels += r.delegates[0].delegate_kernels;
      }
    }
    ++ran;
  }
  std::printf(
      "inference_diff golden: %d models, %d tensors compared (both runs), sample delegate took part of %d "
      "models (%d delegate kernels); every error exactly 0\n",
      ran, tensors, delegated_models, delegate_kernels);
  testing::ReportCases("inference_diff_golden", ran, static_cast<int>(folders.size()));
}

}  // namespace
}  // namespace touchstone
