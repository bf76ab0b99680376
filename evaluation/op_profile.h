// Operator-wise profiling of the regular benchmark runs, as TFLite's benchmark_model reports it
// (--enable_op_profiling): the runtime's NodeObserver tells how long each node's kernel took; per
// subgraph the nodes are aggregated over the runs and printed in TFLite's three tables (Run Order, Top
// by Computation Time, Summary by node type), in its columns, as text or CSV. After them Touchstone adds
// one table of its own, "Kernel per node": each node in run order with the code that ran it (optimized,
// reference, or the delegate's name), so that TFLite's tables stay as scripts read them.
//
// A delegate kernel is one node whose type is the delegate's name (its registration's custom_name), as
// in TFLite. A delegate that reports the ops it ran inside its kernel (AddDelegateOp) has them kept
// under that node: in the report (nested) and, in the text, as TFLite's "Delegate internal:" table.
#ifndef TOUCHSTONE_EVALUATION_OP_PROFILE_H_
#define TOUCHSTONE_EVALUATION_OP_PROFILE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "evaluation/latency_stats.h"
#include "runtime/interpreter.h"

#include <thread>

namespace touchstone {

// One node (or one op inside a delegate kernel), aggregated over the profiled runs.
struct OpProfileNode {
  int subgraph = 0;
  int node_index = -1;    // in the subgraph; for ops inside a delegate, the delegate's own index
  std::string type;       // "CONV_2D", or the delegate's name for a delegate kernel
  std::string name;       // TFLite's: "[output tensor names]:node_index"
  bool delegate = false;  // a delegate kernel
  // The code that ran it (Subgraph::node_kernel): "optimized", "reference" or the delegate's name;
  // for an op inside a delegate kernel, that delegate's name.
  std::string kernel;
  int64_t run_order = 0;              // position of its first event in the first run it appeared in
  LatencyStats us;                    // one sample per call
  int64_t times_called = 0;           // calls over all runs
  std::vector<OpProfileNode> inside;  // ops a delegate kernel reported running (nested)
};

struct OpProfileSubgraph {
  int index = 0;
  std::string name;
  LatencyStats run_total_us;         // per run: the sum of this subgraph's node times
  std::vector<OpProfileNode> nodes;  // in run order
};

// One node's (or one delegate-internal op's) time in one run: what a timeline of an invoke draws.
struct OpTimelineEvent {
  int subgraph = 0;
  int node_index = -1;
  std::string type;
  std::string name;       // as OpProfileNode::name ("Delegate/<op>:<index>" inside a delegate kernel)
  std::string kernel;     // as OpProfileNode::kernel: "optimized", "reference" or the delegate's name
  bool delegate = false;  // a delegate kernel
  int inside_of = -1;     // for an op a delegate reported: its delegate kernel's node
  int thread = 0;         // 0 for the first thread seen calling the observer, 1 for the next, ...
  int64_t start_us = 0;   // from the start of the run
  int64_t duration_us = 0;
};

struct OpProfileReport {
  int runs = 0;
  // The last profiled run, node by node in start order (empty when no run was profiled). Times come
  // from the observer's whole microseconds; an op a delegate reported afterwards starts where its
  // duration ends at the report.
  std::vector<OpTimelineEvent> timeline;
  std::vector<OpProfileSubgraph> subgraphs;  // by index; subgraphs never run are absent
  LatencyStats delegate_ops_run_total_us;    // per run: the time of the ops delegates reported
};

// Collects node timings while it is the interpreter's NodeObserver; only runs between BeginRun and
// EndRun count (TFLite profiles the regular runs, not the warm-up).
class OpProfiler : public NodeObserver {
 public:
  // `interpreter` supplies tensor and subgraph names; it must outlive the profiler.
  explicit OpProfiler(Interpreter* interpreter) : interpreter_(interpreter) {}

  void BeginRun();
  void EndRun();
  void NodeFinished(int subgraph, int node_index, const std::string& op_name, bool delegated,
                    int64_t duration_us) override;
  // An op a delegate kernel ran inside node `delegate_node` (`op_index` numbers the ops inside it).
  void AddDelegateOp(int subgraph, int delegate_node, const std::string& op_name, int op_index, int64_t duration_us);
  // Ops a delegate reports through TfLiteContext::profiler (runtime/delegate_profiler.h).
  void DelegateOpFinished(int subgraph, int node_index, const std::string& op_name, int op_index,
                          int64_t duration_us) override {
    AddDelegateOp(subgraph, node_index, op_name, op_index, duration_us);
  }

  OpProfileReport Report() const;

  // Microseconds of a monotonic clock; nodes' start times are derived from it (now - duration).
  void SetClockForTesting(std::function<int64_t()> now_us) { now_us_ = std::move(now_us); }

 private:
  struct Event {
    int subgraph;
    int node_index;
    std::string type;
    bool delegated;
    int64_t begin_us;
    int64_t duration_us;
    int inside_of = -1;  // delegate node, for ops inside a delegate kernel
    int op_index = -1;
    int thread = 0;
  };
  int ThreadNumber();
  std::string NodeName(int subgraph, int node_index) const;
  std::string NodeKernelName(int subgraph, int node_index) const;

  Interpreter* interpreter_;
  std::function<int64_t()> now_us_;
  bool in_run_ = false;
  int64_t run_begin_us_ = 0;
  std::vector<Event> events_;
  std::vector<std::thread::id> threads_;  // in the order first seen
  std::vector<Event> last_events_;        // the last run's, in start order
  int64_t last_run_begin_us_ = 0;
  int runs_ = 0;
  // (subgraph, node) -> aggregated node; insertion keeps the first run's order.
  std::map<std::pair<int, int>, OpProfileNode> nodes_;
  std::map<int, LatencyStats> run_totals_;
};

struct OpProfileFormat {
  bool csv = false;  // TFLite's ProfileSummaryCSVFormatter
};

// TFLite's per-subgraph output string: for each subgraph the three tables, then "Timings
// (microseconds): ...", "Memory (bytes): count=0", "N nodes observed"; headings "Primary graph (name:
// X) profile:" / "Subgraph (index: N, name: X) profile:" when more than one subgraph ran; then the ops
// delegates reported under "Delegate internal:".
std::string FormatOpProfile(const OpProfileReport& report, const OpProfileFormat& format);

// The whole block TFLite writes: "Operator-wise Profiling Info for Regular Benchmark Runs:" and the
// output string.
std::string FormatOpProfileSection(const OpProfileReport& report, const OpProfileFormat& format);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_OP_PROFILE_H_
