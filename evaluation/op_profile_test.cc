#include "evaluation/op_profile.h"

#include <gtest/gtest.h>

#include <array>
#include <sstream>

#include "runtime/c/builtin_ops.h"
#include "runtime/model.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

// x -> ADD -> MUL -> ADD -> out, with named tensors; subgraph 1 ("body") exists but has no ops.
std::unique_ptr<Interpreter> MakeInterpreter() {
  ModelBuilder b;
  const int x = b.AddTensor(kTfLiteFloat32, {1, 4}, "x");
  const int a = b.AddTensor(kTfLiteFloat32, {1, 4}, "add_out");
  const int m = b.AddTensor(kTfLiteFloat32, {1, 4}, "mul_out");
  const int o = b.AddTensor(kTfLiteFloat32, {1, 4}, "out");
  b.AddOperator(kTfLiteBuiltinAdd, {x, x}, {a}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinMul, {a, a}, {m}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinAdd, {m, x}, {o}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(b.fbb()).Union());
  b.SetInputs({x});
  b.SetOutputs({o});
  b.AddSubgraph("body");
  const int y = b.AddTensor(kTfLiteFloat32, {1}, "y");
  b.SetInputs({y});
  b.SetOutputs({y});
  auto model = Model::FromBuffer(b.Finish(), "profile.tflite");
  EXPECT_TRUE(model.ok()) << model.status().message();
  auto interpreter = Interpreter::Create(model.value(), InterpreterOptions());
  EXPECT_TRUE(interpreter.ok()) << interpreter.status().message();
  return std::move(interpreter.value());
}

// Feeds runs of (node, op, microseconds) through the profiler on a fake clock.
struct Feeder {
  OpProfiler* profiler;
  int64_t now = 1000000;
  void Node(int subgraph, int node, const std::string& op, int64_t us, bool delegated = false) {
    now += us;
    profiler->NodeFinished(subgraph, node, op, delegated, us);
  }
};

// The three-op model and a profiler of it on a fake clock that `feed` moves.
class FakeClockTest : public ::testing::Test {
 protected:
  FakeClockTest() {
    profiler.SetClockForTesting([this]() { return feed.now; });
  }
  // One run per row of the three ops, ADD MUL ADD, taking these microseconds.
  OpProfileReport ThreeOpRuns(const std::vector<std::array<int64_t, 3>>& runs) {
    for (const auto& run : runs) {
      profiler.BeginRun();
      feed.Node(0, 0, "ADD", run[0]);
      feed.Node(0, 1, "MUL", run[1]);
      feed.Node(0, 2, "ADD", run[2]);
      profiler.EndRun();
    }
    return profiler.Report();
  }
  // Two runs: ADD 100/200, MUL 300/300, ADD 100/100 microseconds, after a node outside BeginRun/EndRun
  // (warm-up), which is ignored.
  OpProfileReport TwoRuns() {
    feed.Node(0, 0, "ADD", 999);
    return ThreeOpRuns({{100, 300, 100}, {200, 300, 100}});
  }
  std::unique_ptr<Interpreter> interpreter = MakeInterpreter();
  OpProfiler profiler{interpreter.get()};
  Feeder feed{&profiler};
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST_F(FakeClockTest, AggregatesPerNode) {
  const OpProfileReport report = TwoRuns();
  EXPECT_EQ(report.runs, 2);
  ASSERT_EQ(report.subgraphs.size(), 1u);
  const OpProfileSubgraph& s = report.subgraphs[0];
  EXPECT_EQ(s.run_total_us.samples_us(), (std::vector<int64_t>{500, 600}));
  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.nodes[0].name, "[add_out]:0");
  EXPECT_EQ(s.nodes[1].name, "[mul_out]:1");
  EXPECT_EQ(s.nodes[2].name, "[out]:2");
  EXPECT_EQ(s.nodes[0].type, "ADD");
  EXPECT_EQ(s.nodes[0].us.samples_us(), (std::vector<int64_t>{100, 200}));
  EXPECT_EQ(s.nodes[0].times_called, 2);
  EXPECT_EQ(s.nodes[1].run_order, 1);
}

// Fast nodes finishing within one microsecond tick: the run order stays the nodes' order even when a
// later node took longer (it does not enclose the earlier one: same subgraph, no delegate).
TEST_F(FakeClockTest, SameMicrosecondKeepsRunOrder) {
  profiler.BeginRun();
  feed.Node(0, 0, "ADD", 0);
  feed.Node(0, 1, "MUL", 0);
  feed.Node(0, 2, "ADD", 1);  // starts in the same microsecond as the first two, lasts 1 us
  profiler.EndRun();
  const OpProfileReport report = profiler.Report();
  ASSERT_EQ(report.subgraphs.size(), 1u);
  ASSERT_EQ(report.subgraphs[0].nodes.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(report.subgraphs[0].nodes[i].run_order, i);
    EXPECT_EQ(report.subgraphs[0].nodes[i].node_index, i);
  }
}

TEST_F(FakeClockTest, TfliteTablesHandComputed) {
  const std::vector<std::string> lines = Lines(FormatOpProfile(TwoRuns(), OpProfileFormat()));
  // Sums: ADD:0 300, MUL:1 600, ADD:2 200 of a 1100 us total -> 27.273%, 54.545%, 18.182%.
  const std::vector<std::string> expected = {
      "============================== Run Order ==============================",
      "\t             [node type]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t[times called]\t[Name]",
      "\t                     ADD\t    0.100\t    0.150\t 27.273%\t 27.273%\t     0.000\t        1\t[add_out]:0",
      "\t                     MUL\t    0.300\t    0.300\t 54.545%\t 81.818%\t     0.000\t        1\t[mul_out]:1",
      "\t                     ADD\t    0.100\t    0.100\t 18.182%\t100.000%\t     0.000\t        1\t[out]:2",
      "",
      "============================== Top by Computation Time ==============================",
      "\t             [node type]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t[times called]\t[Name]",
      "\t                     MUL\t    0.300\t    0.300\t 54.545%\t 54.545%\t     0.000\t        1\t[mul_out]:1",
      "\t                     ADD\t    0.100\t    0.150\t 27.273%\t 81.818%\t     0.000\t        1\t[add_out]:0",
      "\t                     ADD\t    0.100\t    0.100\t 18.182%\t100.000%\t     0.000\t        1\t[out]:2",
      "",
      "Number of nodes executed: 3",
      "============================== Summary by node type ==============================",
      "\t             [Node type]\t  [count]\t  [avg ms]\t    [avg %]\t    [cdf %]\t  [mem KB]\t[times called]",
      // Per run: MUL 300, ADD 150 + 100 = 250, of 550.
      "\t                     MUL\t        1\t     0.300\t    54.545%\t    54.545%\t     0.000\t        1",
      "\t                     ADD\t        2\t     0.250\t    45.455%\t   100.000%\t     0.000\t        2",
      "",
      "Timings (microseconds): count=2 first=500 curr=600 min=500 max=600 avg=550 std=50",
      "Memory (bytes): count=0",
      "3 nodes observed",
      "",
      // Touchstone's table after TFLite's: the kernel of each node (the test interpreter is never
      // allocated, so every node is on its default, the reference kernel).
      "============================== Kernel per node ==============================",
      "\t             [node type]\t [avg ms]\t     [%]\t        [kernel]\t[Name]",
      "\t                     ADD\t    0.150\t 27.273%\t       reference\t[add_out]:0",
      "\t                     MUL\t    0.300\t 54.545%\t       reference\t[mul_out]:1",
      "\t                     ADD\t    0.100\t 18.182%\t       reference\t[out]:2",
      "",
  };
  EXPECT_EQ(lines, expected);
}

TEST_F(FakeClockTest, CsvMode) {
  const std::string text = FormatOpProfileSection(TwoRuns(), OpProfileFormat{/*csv=*/true});
  const std::vector<std::string> lines = Lines(text);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], "Operator-wise Profiling Info for Regular Benchmark Runs:");
  EXPECT_EQ(lines[1], "============================== Run Order ==============================");
  EXPECT_EQ(lines[2], "node type, first, avg_ms, %, cdf%, mem KB, times called, name");
  EXPECT_EQ(lines[3], "ADD, 0.1, 0.15, 27.2727%, 27.2727%, 0, 1, [add_out]:0");
  EXPECT_EQ(lines[4], "MUL, 0.3, 0.3, 54.5455%, 81.8182%, 0, 1, [mul_out]:1");
  EXPECT_NE(
      text.find(
          "node type, count, avg_ms, avg %, cdf %, mem KB, times called\nMUL, 1, 0.3, 54.5455%, 54.5455%, 0, 1\n"),
      std::string::npos)
      << text;
}

// Figures that are not round: the csv lines print them as TFLite streams them (six significant digits),
// the table with three decimals.
TEST_F(FakeClockTest, ThirdsKeepTheirDigits) {
  const OpProfileReport report = ThreeOpRuns({{1001, 2000, 7}, {1002, 2000, 7}, {1004, 2001, 8}});
  const std::vector<std::string> lines = Lines(FormatOpProfile(report, OpProfileFormat{/*csv=*/true}));
  ASSERT_GE(lines.size(), 18u);
  EXPECT_EQ(lines[2], "ADD, 1.001, 1.00233, 33.3001%, 33.3001%, 0, 1, [add_out]:0");
  EXPECT_EQ(lines[3], "MUL, 2, 2.00033, 66.4563%, 99.7564%, 0, 1, [mul_out]:1");
  EXPECT_EQ(lines[4], "ADD, 0.007, 0.00733333, 0.243632%, 100%, 0, 1, [out]:2");
  EXPECT_EQ(lines[15], "MUL, 1, 2, 66.4673%, 66.4673%, 0, 1");
  EXPECT_EQ(lines[16], "ADD, 2, 1.009, 33.5327%, 100%, 0, 2");
  EXPECT_EQ(lines[18], "Timings (microseconds): count=3 first=3008 curr=3013 min=3008 max=3013 avg=3010 std=2");
  const std::vector<std::string> table = Lines(FormatOpProfile(report, OpProfileFormat()));
  ASSERT_GE(table.size(), 5u);
  EXPECT_EQ(table[2],
            "\t                     ADD\t    1.001\t    1.002\t 33.300%\t 33.300%\t     0.000\t        1\t[add_out]:0");
  EXPECT_EQ(table[4],
            "\t                     ADD\t    0.007\t    0.007\t  0.244%\t100.000%\t     0.000\t        1\t[out]:2");
}

TEST_F(FakeClockTest, DelegateKernelIsOneNodeWithItsOpsInside) {
  profiler.BeginRun();
  feed.Node(0, 0, "ADD", 10);
  // The delegate kernel (node 1) reports two ops while it runs, then finishes after 50 us.
  const int64_t kernel_start = feed.now;
  feed.now += 20;
  profiler.AddDelegateOp(0, 1, "MUL", 0, 20);
  feed.now += 25;
  profiler.AddDelegateOp(0, 1, "ADD", 1, 25);
  feed.now = kernel_start + 50;
  profiler.NodeFinished(0, 1, "SampleDelegate", true, 50);
  profiler.EndRun();
  const OpProfileReport report = profiler.Report();
  ASSERT_EQ(report.subgraphs.size(), 1u);
  const OpProfileSubgraph& s = report.subgraphs[0];
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[1].type, "SampleDelegate");
  EXPECT_TRUE(s.nodes[1].delegate);
  ASSERT_EQ(s.nodes[1].inside.size(), 2u);
  EXPECT_EQ(s.nodes[1].inside[0].name, "Delegate/MUL:0");
  EXPECT_EQ(s.nodes[1].inside[1].us.samples_us(), (std::vector<int64_t>{25}));
  // The delegate's ops are not counted twice in the run total.
  EXPECT_EQ(s.run_total_us.samples_us(), (std::vector<int64_t>{60}));
  const std::string text = FormatOpProfile(report, OpProfileFormat());
  EXPECT_NE(text.find("\t          SampleDelegate\t"), std::string::npos) << text;
  EXPECT_NE(text.find("Delegate internal: \n"), std::string::npos) << text;
  EXPECT_NE(text.find("Delegate/ADD:1"), std::string::npos) << text;
}

// The report keeps the last run node by node: start times from the run's start, the delegate kernel
// marked, the ops it reported inside it.
TEST_F(FakeClockTest, TimelineOfTheLastRun) {
  EXPECT_EQ(TwoRuns().timeline.size(), 3u);
  profiler.BeginRun();
  feed.now += 5;  // the run starts 5 us before its first node
  feed.Node(0, 0, "ADD", 10);
  const int64_t kernel_start = feed.now;
  feed.now += 20;
  profiler.AddDelegateOp(0, 1, "MUL", 0, 20);
  feed.now = kernel_start + 50;
  profiler.NodeFinished(0, 1, "SampleDelegate", true, 50);
  profiler.EndRun();
  const std::vector<OpTimelineEvent> timeline = profiler.Report().timeline;
  ASSERT_EQ(timeline.size(), 3u);
  EXPECT_EQ(timeline[0].name, "[add_out]:0");
  EXPECT_EQ(timeline[0].start_us, 5);
  EXPECT_EQ(timeline[0].duration_us, 10);
  EXPECT_EQ(timeline[1].type, "SampleDelegate");
  EXPECT_TRUE(timeline[1].delegate);
  EXPECT_EQ(timeline[1].start_us, 15);
  EXPECT_EQ(timeline[2].name, "Delegate/MUL:0");
  EXPECT_EQ(timeline[2].inside_of, 1);
  EXPECT_EQ(timeline[2].start_us, 15);
  EXPECT_EQ(timeline[2].thread, 0);
}

TEST_F(FakeClockTest, SeveralSubgraphsGetHeadings) {
  profiler.BeginRun();
  feed.Node(0, 0, "ADD", 10);
  feed.Node(1, 0, "ADD", 5);
  profiler.EndRun();
  const std::string text = FormatOpProfile(profiler.Report(), OpProfileFormat());
  EXPECT_EQ(text.find("Primary graph (name: "), 0u) << text;
  EXPECT_NE(text.find("Subgraph (index: 1, name: body) profile:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Subgraph (index: 1, name: body) Timings (microseconds): count=1 curr=5\n"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace touchstone
