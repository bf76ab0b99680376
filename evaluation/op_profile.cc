#include "evaluation/op_profile.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "evaluation/fixed_width.h"

namespace touchstone {
namespace {

int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// TFLite's StatsCalculator::InitField: a tab, then the value right-aligned in a field of `width`
// (iostream's std::setw), numbers fixed with 3 decimals.
void Field(std::string* out, size_t width, std::string_view text) {
  *out += '\t';
  *out += PadLeft(text, width);
}
void Field(std::string* out, int width, double value) {
  fmt::format_to(std::back_inserter(*out), "\t{:>{}.3f}", value, width);
}
void Field(std::string* out, int width, int64_t value) {
  fmt::format_to(std::back_inserter(*out), "\t{:>{}}", value, width);
}

// A table's banner line, then its column headings: the csv line, or each title a Field of its width
// followed by `last_title` (the name column has no width).
std::string TableHeader(const std::string& title, bool csv, const char* csv_headings, const std::vector<size_t>& widths,
                        const std::vector<const char*>& titles, const char* last_title) {
  std::string out = "============================== " + title + " ==============================\n";
  if (csv) return out + csv_headings + "\n";
  for (size_t i = 0; i < widths.size() && i < titles.size(); ++i) Field(&out, widths[i], titles[i]);
  return out + last_title + "\n";
}

// The last four columns of both of TFLite's tables: the percentage and the cumulative one (each
// followed by %), the memory and the calls per run.
void PercentMemoryCalls(std::string* out, int percent_width, double percentage, double cdf, double mem_kb,
                        int64_t times_called) {
  Field(out, percent_width, percentage);
  *out += "%";
  Field(out, percent_width, cdf);
  *out += "%";
  Field(out, 10, mem_kb);
  Field(out, 9, times_called);
}

// One table's worth of nodes of one subgraph (or the delegate-internal ops) and its run totals.
struct Calculator {
  std::vector<const OpProfileNode*> nodes;  // run order
  const LatencyStats* run_total = nullptr;

  int64_t runs() const { return run_total->count(); }
  int64_t total_sum() const { return run_total->sum_us(); }
};

// The csv lines print figures as TFLite streams them: six significant digits ({:g}).
std::string Row(const OpProfileNode& node, int64_t cumulative_us, const Calculator& calc, bool csv) {
  const double first_ms = static_cast<double>(node.us.first_us()) / 1000.0;
  const double avg_ms = node.us.mean_us() / 1000.0;
  const int64_t total = calc.total_sum();
  // TFLite divides by the run total; a run whose nodes all took under a microsecond would give 0/0.
  const double percentage =
      total > 0 ? static_cast<double>(node.us.sum_us()) * 100.0 / static_cast<double>(total) : 0.0;
  const float cdf = total > 0 ? (static_cast<float>(cumulative_us) * 100.0f) / static_cast<float>(total) : 0.0f;
  const int64_t times_called = calc.runs() > 0 ? node.times_called / calc.runs() : 0;
  const double mem_kb = 0.0;  // no memory events
  if (csv) {
    return fmt::format("{}, {:g}, {:g}, {:g}%, {:g}%, {:g}, {}, {}", node.type, first_ms, avg_ms, percentage, cdf,
                       mem_kb, times_called, node.name);
  }
  std::string out;
  Field(&out, 24, node.type);
  Field(&out, 9, first_ms);
  Field(&out, 9, avg_ms);
  PercentMemoryCalls(&out, 7, percentage, cdf, mem_kb, times_called);
  out += "\t" + node.name;
  return out;
}

std::string StatsByMetric(const Calculator& calc, const std::string& title,
                          const std::vector<const OpProfileNode*>& ordered, size_t limit, bool csv) {
  std::string out =
      TableHeader(title, csv, "node type, first, avg_ms, %, cdf%, mem KB, times called, name", {24, 9, 9, 8, 8, 10, 9},
                  {"[node type]", "[first]", "[avg ms]", "[%]", "[cdf%]", "[mem KB]", "[times called]"}, "\t[Name]");
  int64_t cumulative = 0;
  for (size_t i = 0; i < ordered.size() && (limit == 0 || i < limit); ++i) {
    cumulative += ordered[i]->us.sum_us();
    out += Row(*ordered[i], cumulative, calc, csv) + "\n";
  }
  return out + "\n";
}

// Touchstone's table: each node in run order with the code that ran it.
std::string KernelTable(const Calculator& calc, int subgraph, bool several_subgraphs, bool csv) {
  std::string title = "Kernel per node";
  if (several_subgraphs) title += fmt::format(" (subgraph {})", subgraph);
  std::string out = TableHeader(title, csv, "node type, avg_ms, %, kernel, name", {24, 9, 8, 16},
                                {"[node type]", "[avg ms]", "[%]", "[kernel]"}, "\t[Name]");
  const int64_t total = calc.total_sum();
  for (const OpProfileNode* node : calc.nodes) {
    const double avg_ms = node->us.mean_us() / 1000.0;
    const double percentage =
        total > 0 ? static_cast<double>(node->us.sum_us()) * 100.0 / static_cast<double>(total) : 0.0;
    if (csv) {
      fmt::format_to(std::back_inserter(out), "{}, {:g}, {:g}%, {}, {}\n", node->type, avg_ms, percentage, node->kernel,
                     node->name);
    } else {
      Field(&out, 24, node->type);
      Field(&out, 9, avg_ms);
      Field(&out, 7, percentage);
      out += "%";
      Field(&out, 16, node->kernel);
      out += "\t" + node->name + "\n";
    }
  }
  return out + "\n";
}

std::string StatsByNodeType(const Calculator& calc, bool csv) {
  std::string out = fmt::format("Number of nodes executed: {}\n", calc.nodes.size());
  std::map<std::string, int64_t> count, time, memory, times_called;
  int64_t accumulated_us = 0;
  const int64_t runs = calc.runs();
  for (const OpProfileNode* node : calc.nodes) {
    const int64_t per_run = runs > 0 ? node->us.sum_us() / runs : 0;
    accumulated_us += per_run;
    count[node->type] += 1;
    time[node->type] += per_run;
    memory[node->type] += 0;
    times_called[node->type] += runs > 0 ? node->times_called / runs : 0;
  }
  // Largest time first; equal times: type names in descending order (TFLite's priority queue).
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& entry : time) order.emplace_back(entry.second, entry.first);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second > b.second; });
  out += TableHeader("Summary by node type", csv, "node type, count, avg_ms, avg %, cdf %, mem KB, times called",
                     {24, 9, 10, 11, 11, 10, 10},
                     {"[Node type]", "[count]", "[avg ms]", "[avg %]", "[cdf %]", "[mem KB]", "[times called]"}, "");
  float cdf = 0.0f;
  for (const auto& entry : order) {
    const std::string& type = entry.second;
    const float mem_kb = static_cast<float>(memory[type]) / 1000.0f;
    const float ms = static_cast<float>(entry.first) / 1000.0f;
    const float percentage =
        accumulated_us > 0 ? (static_cast<float>(entry.first) / static_cast<float>(accumulated_us)) * 100.0f : 0.0f;
    cdf += percentage;
    if (csv) {
      fmt::format_to(std::back_inserter(out), "{}, {}, {:g}, {:g}%, {:g}%, {:g}, {}\n", type, count[type], ms,
                     percentage, cdf, mem_kb, times_called[type]);
    } else {
      Field(&out, 24, type);
      Field(&out, 9, count[type]);
      Field(&out, 10, ms);
      PercentMemoryCalls(&out, 10, percentage, cdf, mem_kb, times_called[type]);
      out += "\n";
    }
  }
  return out + "\n";
}

// StatsCalculator::GetOutputString with TFLite's profile options: run order (all), top 10 by time,
// summary by node type; no memory table, no short summary.
std::string OutputString(const Calculator& calc, bool csv) {
  std::vector<const OpProfileNode*> by_time = calc.nodes;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const OpProfileNode* a, const OpProfileNode* b) { return a->us.mean_us() > b->us.mean_us(); });
  return StatsByMetric(calc, "Run Order", calc.nodes, 0, csv) +
         StatsByMetric(calc, "Top by Computation Time", by_time, 10, csv) + StatsByNodeType(calc, csv);
}

std::string ShortSummary(const Calculator& calc) {
  return fmt::format("Timings (microseconds): {}\nMemory (bytes): count=0\n{} nodes observed\n",
                     calc.run_total->ToStringWithoutPercentiles(), calc.nodes.size());
}

}  // namespace

void OpProfiler::BeginRun() {
  in_run_ = true;
  events_.clear();
  run_begin_us_ = now_us_ ? now_us_() : SteadyMicros();
}

int OpProfiler::ThreadNumber() {
  const std::thread::id id = std::this_thread::get_id();
  for (size_t i = 0; i < threads_.size(); ++i) {
    if (threads_[i] == id) return static_cast<int>(i);
  }
  threads_.push_back(id);
  return static_cast<int>(threads_.size()) - 1;
}

void OpProfiler::NodeFinished(int subgraph, int node_index, const std::string& op_name, bool delegated,
                              int64_t duration_us) {
  if (!in_run_) return;
  const int64_t now = now_us_ ? now_us_() : SteadyMicros();
  Event e{subgraph, node_index, op_name, delegated, now - duration_us, duration_us};
  e.thread = ThreadNumber();
  events_.push_back(e);
}

void OpProfiler::AddDelegateOp(int subgraph, int delegate_node, const std::string& op_name, int op_index,
                               int64_t duration_us) {
  if (!in_run_) return;
  const int64_t now = now_us_ ? now_us_() : SteadyMicros();
  Event e{subgraph, delegate_node, op_name, false, now - duration_us, duration_us};
  e.inside_of = delegate_node;
  e.op_index = op_index;
  e.thread = ThreadNumber();
  events_.push_back(e);
}

std::string OpProfiler::NodeKernelName(int subgraph, int node_index) const {
  if (subgraph < 0 || static_cast<size_t>(subgraph) >= interpreter_->subgraphs_size()) return "";
  Subgraph* s = interpreter_->subgraph(subgraph);
  if (node_index < 0 || static_cast<size_t>(node_index) >= s->nodes_size()) return "";
  return s->node_kernel(node_index);
}

std::string OpProfiler::NodeName(int subgraph, int node_index) const {
  // TFLite's name: the node's output tensor names in brackets, then ":" and the node index.
  std::string name = "[";
  if (subgraph >= 0 && static_cast<size_t>(subgraph) < interpreter_->subgraphs_size()) {
    Subgraph* s = interpreter_->subgraph(subgraph);
    if (node_index >= 0 && static_cast<size_t>(node_index) < s->nodes_size()) {
      const TfLiteIntArray* outputs = s->node(node_index).outputs;
      for (int i = 0; outputs != nullptr && i < outputs->size; ++i) {
        const int t = outputs->data[i];
        const char* tensor_name = t >= 0 && static_cast<size_t>(t) < s->tensors_size() ? s->tensor(t)->name : nullptr;
        name += (i > 0 ? ", " : "") + std::string(tensor_name != nullptr ? tensor_name : "Unknown");
      }
    }
  }
  return name + "]:" + std::to_string(node_index);
}

void OpProfiler::EndRun() {
  if (!in_run_) return;
  in_run_ = false;
  // By start time, as TFLite's summarizer orders events; an enclosing node (WHILE, a delegate kernel)
  // starts no later than what it contains and lasts longer.
  std::vector<size_t> order(events_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Event& x = events_[a];
    const Event& y = events_[b];
    if (x.begin_us != y.begin_us) return x.begin_us < y.begin_us;
    // Same microsecond. Nodes of one subgraph run one after another, so their finishing order (the
    // order recorded) is their starting order; only across subgraphs or into a delegate kernel can
    // one event enclose another, and then the enclosing one is the longer.
    if (x.subgraph == y.subgraph && x.inside_of == -1 && y.inside_of == -1) return a < b;
    return x.duration_us > y.duration_us;
  });
  // Ops inside one delegate kernel keep the order they were reported in (the order they ran): a time
  // measured afterwards (a GPU timestamp, Profiler::AddEvent) gives no start time to sort by.
  std::map<std::pair<int, int>, std::vector<size_t>> slots;  // (subgraph, delegate node) -> positions
  for (size_t p = 0; p < order.size(); ++p) {
    const Event& e = events_[order[p]];
    if (e.inside_of >= 0) slots[std::make_pair(e.subgraph, e.inside_of)].push_back(p);
  }
  for (const auto& entry : slots) {
    std::vector<size_t> recorded;
    for (size_t p : entry.second) recorded.push_back(order[p]);
    std::sort(recorded.begin(), recorded.end());
    for (size_t k = 0; k < recorded.size(); ++k) order[entry.second[k]] = recorded[k];
  }
  std::map<int, int64_t> totals;
  int64_t delegate_ops_total = 0;
  bool any_delegate_op = false;
  int64_t node_num = 0;
  for (size_t i : order) {
    const Event& e = events_[i];
    const int parent_index = e.inside_of >= 0 ? e.inside_of : e.node_index;
    OpProfileNode* node = nullptr;
    auto key = std::make_pair(e.subgraph, parent_index);
    auto it = nodes_.find(key);
    if (it == nodes_.end()) {
      OpProfileNode fresh;
      fresh.subgraph = e.subgraph;
      fresh.node_index = parent_index;
      fresh.name = NodeName(e.subgraph, parent_index);
      fresh.kernel = NodeKernelName(e.subgraph, parent_index);
      fresh.run_order = node_num;
      if (e.inside_of < 0) {
        fresh.type = e.type;
        fresh.delegate = e.delegated;
      } else {
        fresh.delegate = true;
      }
      it = nodes_.emplace(key, std::move(fresh)).first;
    }
    node = &it->second;
    if (e.inside_of < 0) {
      if (node->type.empty()) node->type = e.type;
      node->delegate = e.delegated;
      node->us.Add(e.duration_us);
      ++node->times_called;
      totals[e.subgraph] += e.duration_us;
    } else {
      OpProfileNode* op = nullptr;
      for (OpProfileNode& inner : node->inside) {
        if (inner.node_index == e.op_index && inner.type == e.type) op = &inner;
      }
      if (op == nullptr) {
        OpProfileNode fresh;
        fresh.subgraph = e.subgraph;
        fresh.node_index = e.op_index;
        fresh.type = e.type;
        fresh.name = "Delegate/" + e.type + ":" + std::to_string(e.op_index);
        fresh.kernel = node->kernel;
        fresh.run_order = node_num;
        node->inside.push_back(std::move(fresh));
        op = &node->inside.back();
      }
      op->us.Add(e.duration_us);
      ++op->times_called;
      delegate_ops_total += e.duration_us;
      any_delegate_op = true;
    }
    ++node_num;
  }
  for (const auto& entry : totals) run_totals_[entry.first].Add(entry.second);
  if (any_delegate_op) run_totals_[-1].Add(delegate_ops_total);
  ++runs_;
  // The last run's events in start order, for the timeline (named only when a report asks).
  last_events_.clear();
  for (size_t i : order) last_events_.push_back(std::move(events_[i]));
  last_run_begin_us_ = run_begin_us_;
  events_.clear();
}

OpProfileReport OpProfiler::Report() const {
  OpProfileReport report;
  report.runs = runs_;
  for (const Event& e : last_events_) {
    OpTimelineEvent t;
    t.subgraph = e.subgraph;
    t.node_index = e.inside_of >= 0 ? e.op_index : e.node_index;
    t.type = e.type;
    t.name =
        e.inside_of >= 0 ? "Delegate/" + e.type + ":" + std::to_string(e.op_index) : NodeName(e.subgraph, e.node_index);
    t.kernel = NodeKernelName(e.subgraph, e.inside_of >= 0 ? e.inside_of : e.node_index);
    t.delegate = e.inside_of < 0 && e.delegated;
    t.inside_of = e.inside_of;
    t.thread = e.thread;
    t.start_us = std::max<int64_t>(0, e.begin_us - last_run_begin_us_);
    t.duration_us = e.duration_us;
    report.timeline.push_back(std::move(t));
  }
  std::map<int, OpProfileSubgraph> by_index;
  for (const auto& entry : nodes_) {
    const int index = entry.first.first;
    OpProfileSubgraph& s = by_index[index];
    s.index = index;
    s.nodes.push_back(entry.second);
  }
  for (auto& entry : by_index) {
    OpProfileSubgraph& s = entry.second;
    if (static_cast<size_t>(s.index) < interpreter_->subgraphs_size()) s.name = interpreter_->subgraph(s.index)->name();
    auto total = run_totals_.find(s.index);
    if (total != run_totals_.end()) s.run_total_us = total->second;
    std::stable_sort(s.nodes.begin(), s.nodes.end(),
                     [](const OpProfileNode& a, const OpProfileNode& b) { return a.run_order < b.run_order; });
    for (OpProfileNode& n : s.nodes) {
      std::stable_sort(n.inside.begin(), n.inside.end(),
                       [](const OpProfileNode& a, const OpProfileNode& b) { return a.run_order < b.run_order; });
    }
    report.subgraphs.push_back(std::move(s));
  }
  auto delegate_total = run_totals_.find(-1);
  if (delegate_total != run_totals_.end()) report.delegate_ops_run_total_us = delegate_total->second;
  return report;
}

std::string FormatOpProfile(const OpProfileReport& report, const OpProfileFormat& format) {
  std::string out;
  bool has_non_primary = false;
  for (const OpProfileSubgraph& s : report.subgraphs) has_non_primary |= s.index != 0;
  std::vector<OpProfileNode> delegate_ops;
  for (const OpProfileSubgraph& s : report.subgraphs) {
    Calculator calc;
    calc.run_total = &s.run_total_us;
    for (const OpProfileNode& n : s.nodes) {
      calc.nodes.push_back(&n);
      for (const OpProfileNode& inner : n.inside) delegate_ops.push_back(inner);
    }
    if (has_non_primary) {
      if (s.index == 0) {
        out += "Primary graph (name: " + s.name + ") profile:\n";
      } else {
        out += fmt::format("Subgraph (index: {}, name: {}) profile:\n", s.index, s.name);
      }
    }
    out += OutputString(calc, format.csv);
    if (s.index != 0) out += fmt::format("Subgraph (index: {}, name: {}) ", s.index, s.name);
    out += ShortSummary(calc) + "\n";
  }
  if (!delegate_ops.empty()) {
    std::stable_sort(delegate_ops.begin(), delegate_ops.end(),
                     [](const OpProfileNode& a, const OpProfileNode& b) { return a.run_order < b.run_order; });
    Calculator calc;
    calc.run_total = &report.delegate_ops_run_total_us;
    for (const OpProfileNode& n : delegate_ops) calc.nodes.push_back(&n);
    out += "Delegate internal: \n";
    out += OutputString(calc, format.csv);
    out += ShortSummary(calc) + "\n";
  }
  for (const OpProfileSubgraph& s : report.subgraphs) {
    Calculator calc;
    calc.run_total = &s.run_total_us;
    for (const OpProfileNode& n : s.nodes) calc.nodes.push_back(&n);
    out += KernelTable(calc, s.index, has_non_primary, format.csv);
  }
  return out;
}

std::string FormatOpProfileSection(const OpProfileReport& report, const OpProfileFormat& format) {
  return "Operator-wise Profiling Info for Regular Benchmark Runs:\n" + FormatOpProfile(report, format) + "\n";
}

}  // namespace touchstone
