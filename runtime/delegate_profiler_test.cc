// DelegateProfiler: TFLite's profiler events from a delegate become NodeObserver::DelegateOpFinished
// calls for the node being invoked; other event types and unknown handles are dropped.
#include "runtime/delegate_profiler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/interpreter.h"

namespace touchstone {
namespace {

struct Recorded {
  int subgraph;
  int node_index;
  std::string op_name;
  int op_index;
  int64_t duration_us;
};

class Recorder : public NodeObserver {
 public:
  void NodeFinished(int, int, const std::string&, bool, int64_t) override {}
  void DelegateOpFinished(int subgraph, int node_index, const std::string& op_name, int op_index,
                          int64_t duration_us) override {
    ops.push_back({subgraph, node_index, op_name, op_index, duration_us});
  }
  std::vector<Recorded> ops;
};

TEST(DelegateProfilerTest, ForwardsDelegateOpsWithTheirTimes) {
  Recorder recorder;
  DelegateProfiler profiler(2);
  int64_t now = 1000;
  profiler.SetClockForTesting([&now]() { return now; });
  profiler.set_observer(&recorder);
  profiler.set_current_node(7);
  {
    TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE(&profiler, "CONV_2D", 3);
    now += 40;
    {
      // Nested events each get their own handle.
      TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE(&profiler, "ADD", 4);
      now += 5;
    }
    now += 1;
  }
  profiler.AddEvent("TANH", tflite::Profiler::EventType::DELEGATE_OPERATOR_INVOKE_EVENT, 17, 9);
  ASSERT_EQ(recorder.ops.size(), 3u);
  EXPECT_EQ(recorder.ops[0].op_name, "ADD");
  EXPECT_EQ(recorder.ops[0].op_index, 4);
  EXPECT_EQ(recorder.ops[0].duration_us, 5);
  EXPECT_EQ(recorder.ops[1].op_name, "CONV_2D");
  EXPECT_EQ(recorder.ops[1].op_index, 3);
  EXPECT_EQ(recorder.ops[1].duration_us, 46);
  EXPECT_EQ(recorder.ops[2].op_name, "TANH");
  EXPECT_EQ(recorder.ops[2].op_index, 9);
  EXPECT_EQ(recorder.ops[2].duration_us, 17);
  for (const Recorded& r : recorder.ops) {
    EXPECT_EQ(r.subgraph, 2);
    EXPECT_EQ(r.node_index, 7);
  }
}

TEST(DelegateProfilerTest, DropsOtherEventTypesAndUnknownHandles) {
  Recorder recorder;
  DelegateProfiler profiler(0);
  profiler.set_observer(&recorder);
  { TFLITE_SCOPED_TAGGED_DEFAULT_PROFILE(&profiler, "whatever"); }
  { TFLITE_SCOPED_TAGGED_OPERATOR_PROFILE(&profiler, "CONV_2D", 1); }
  {
    tflite::ScopedRuntimeInstrumentationProfile p(&profiler, "invoke");
    p.set_runtime_status(0, 0);
  }
  TFLITE_ADD_RUNTIME_INSTRUMENTATION_EVENT((&profiler), "status", 1, 2);
  profiler.AddEvent("x", tflite::Profiler::EventType::TELEMETRY_EVENT, 1, 0);
  profiler.AddEventWithData("x", tflite::Profiler::EventType::TELEMETRY_REPORT_SETTINGS, nullptr);
  profiler.EndEvent(0);
  profiler.EndEvent(12345);
  EXPECT_TRUE(recorder.ops.empty());
  // Ending twice reports once.
  const uint32_t handle = profiler.BeginEvent("ADD", tflite::Profiler::EventType::DELEGATE_OPERATOR_INVOKE_EVENT, 0);
  EXPECT_NE(handle, 0u);
  profiler.EndEvent(handle);
  profiler.EndEvent(handle);
  EXPECT_EQ(recorder.ops.size(), 1u);
}

TEST(DelegateProfilerTest, NothingWithoutAnObserverOrAProfiler) {
  DelegateProfiler profiler(0);
  EXPECT_EQ(profiler.BeginEvent("ADD", tflite::Profiler::EventType::DELEGATE_OPERATOR_INVOKE_EVENT, 0), 0u);
  // A null profiler is allowed in the scoped helpers, as in TFLite.
  tflite::Profiler* none = nullptr;
  { TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE(none, "ADD", 0); }
}

}  // namespace
}  // namespace touchstone
