#include "evaluation/report_envelope.h"
#include "runtime/tensor_util.h"

#include <cmath>
#include <ctime>

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json PairsJson(const std::vector<std::pair<std::string, std::string>>& pairs) {
  ordered_json j = ordered_json::object();
  for (const auto& p : pairs) j[p.first] = p.second;
  return j;
}

std::vector<std::pair<std::string, std::string>> PairsFrom(const json& j) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!j.is_object()) return pairs;
  for (auto it = j.begin(); it != j.end(); ++it) {
    pairs.emplace_back(it.key(), it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
  }
  return pairs;
}

std::string StringOr(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

int64_t IntOr(const json& j, const char* key, int64_t fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>() : fallback;
}

bool BoolOr(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

// "XNNPACK", "EXTERNAL (external_delegate_path=libvendor.so)".
std::string DelegateText(const ReportedDelegate& d) {
  std::string text = d.provider;
  if (d.options.empty()) return text;
  text += " (";
  for (size_t i = 0; i < d.options.size(); ++i) {
    text += (i ? ", " : "") + d.options[i].first + "=" + d.options[i].second;
  }
  return text + ")";
}

std::string DelegatesText(const std::vector<ReportedDelegate>& delegates) {
  if (delegates.empty()) return "none";
  std::string text;
  for (size_t i = 0; i < delegates.size(); ++i) text += (i ? ", " : "") + DelegateText(delegates[i]);
  return text;
}

std::string Short(const std::string& sha256) { return sha256.substr(0, 12); }

// Microseconds at nanosecond resolution (three decimals).
double FineUs(double us) { return std::round(us * 1000.0) / 1000.0; }

}  // namespace

ordered_json JsonNumber(double value) { return std::isfinite(value) ? ordered_json(value) : ordered_json(nullptr); }

ordered_json LatencyStatsJson(const LatencyStats& stats, bool with_samples) {
  const LatencySummary s = stats.Summary();
  ordered_json j;
  j["count"] = s.count;
  j["first_us"] = FineUs(s.first_fine_us);
  j["last_us"] = FineUs(s.last_fine_us);
  j["min_us"] = FineUs(s.min_fine_us);
  j["max_us"] = FineUs(s.max_fine_us);
  j["mean_us"] = JsonNumber(FineUs(s.mean_fine_us));
  j["std_us"] = JsonNumber(FineUs(s.stddev_fine_us));
  j["median_us"] = JsonNumber(FineUs(s.median_fine_us));
  j["p5_us"] = FineUs(s.p5_fine_us);
  j["p50_us"] = FineUs(s.p50_fine_us);
  j["p90_us"] = FineUs(s.p90_fine_us);
  j["p95_us"] = FineUs(s.p95_fine_us);
  j["p99_us"] = FineUs(s.p99_fine_us);
  j["percentiles_exact"] = s.percentiles_exact;
  // TFLite's whole-microsecond figures, as its line prints them.
  ordered_json tflite;
  tflite["first"] = s.first_us;
  tflite["curr"] = s.last_us;
  tflite["min"] = s.min_us;
  tflite["max"] = s.max_us;
  tflite["avg"] = JsonNumber(s.mean_us);
  tflite["std"] = static_cast<int64_t>(s.stddev_us);
  tflite["p5"] = s.p5_us;
  tflite["median"] = s.p50_us;
  tflite["p95"] = s.p95_us;
  j["tflite"] = tflite;
  if (!with_samples) return j;
  const std::vector<KeptLatencySample> kept = stats.kept();
  ordered_json runs = ordered_json::array(), latencies = ordered_json::array();
  for (const KeptLatencySample& k : kept) {
    runs.push_back(k.run);
    latencies.push_back(static_cast<double>(k.ns) / 1000.0);
  }
  ordered_json samples;
  samples["kept"] = kept.size();
  samples["all_kept"] = stats.all_kept();
  samples["run_index"] = runs;
  samples["latency_us"] = latencies;
  j["samples"] = samples;
  if (stats.all_kept()) {
    j["histogram"] = nullptr;
  } else {
    ordered_json histogram, buckets = ordered_json::array(), counts = ordered_json::array();
    for (const auto& b : stats.histogram().NonEmptyBuckets()) {
      buckets.push_back(b.first);
      counts.push_back(b.second);
    }
    histogram["unit"] = "ns";
    histogram["sub_buckets_per_octave"] = LatencyHistogram::kSubBuckets;
    histogram["bucket"] = buckets;
    histogram["count"] = counts;
    j["histogram"] = histogram;
  }
  return j;
}

std::string UtcTimestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

ReportEnvelope NewEnvelope(const std::string& tool, int schema_version) {
  ReportEnvelope envelope;
  envelope.schema = "touchstone." + tool + ".report";
  envelope.schema_version = schema_version;
  envelope.tool = tool;
  envelope.start_time = UtcTimestamp();
  envelope.machine = ReadMachineInfo();
  return envelope;
}

ordered_json EnvelopeJson(const ReportEnvelope& e) {
  ordered_json j;
  j["schema"] = e.schema;
  j["schema_version"] = e.schema_version;
  j["tool"] = e.tool;
  j["touchstone_version"] = e.touchstone_version;
  j["start_time"] = e.start_time;
  j["model"] = {{"path", e.model.path}, {"size_bytes", e.model.size_bytes}, {"sha256", e.model.sha256}};
  const MachineInfo& m = e.machine;
  ordered_json machine;
  machine["cpu_model"] = m.cpu_model;
  machine["logical_cores"] = m.logical_cores;
  machine["usable_cores"] = m.usable_cores;
  machine["isa"] = m.isa;
  machine["os"] = m.os;
  machine["kernel"] = m.kernel;
  machine["hostname"] = m.hostname;
  machine["governor"] = m.governor;
  machine["cur_freq_khz"] = m.cur_freq_khz;
  machine["max_freq_khz"] = m.max_freq_khz;
  j["machine"] = machine;

  const RunConfiguration& c = e.config;
  ordered_json config;
  config["num_threads"] = c.num_threads;
  config["kernels"] = c.kernels;
  ordered_json delegates = ordered_json::array();
  for (const ReportedDelegate& d : c.delegates) {
    ordered_json entry;
    entry["provider"] = d.provider;
    entry["options"] = PairsJson(d.options);
    entry["applied"] = d.applied;
    entry["delegate_kernels"] = d.delegate_kernels;
    entry["fully_delegated"] = d.fully_delegated;
    entry["error"] = d.error;
    delegates.push_back(entry);
  }
  config["delegates"] = delegates;
  ordered_json inputs = ordered_json::array();
  for (const ReportedInput& in : c.inputs) {
    inputs.push_back({{"name", in.name}, {"type", in.type}, {"shape", in.shape}, {"source", in.source}});
  }
  config["inputs"] = inputs;
  config["settings"] = PairsJson(c.settings);
  config["flags"] = PairsJson(c.flags);
  j["configuration"] = config;
  if (e.shard.present()) {
    j["shard"] = {{"index", e.shard.index}, {"count", e.shard.count}, {"unit", e.shard.unit},
                  {"first", e.shard.first}, {"end", e.shard.end},     {"total", e.shard.total}};
  }
  if (e.merged.present()) {
    j["merged"] = {{"shards", e.merged.shards},
                   {"unit", e.merged.unit},
                   {"total", e.merged.total},
                   {"hostnames", e.merged.hostnames}};
  }
  return j;
}

StatusOr<ParsedReport> ParseReport(const std::string& text, const std::string& source,
                                   const std::string& expected_schema, int schema_version,
                                   const std::string& written_by) {
  ParsedReport report;
  report.json = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (report.json.is_discarded() || !report.json.is_object()) {
    return InvalidInputError(source + ": not a JSON object (expected a report written by " + written_by + ")");
  }
  TS_ASSIGN_OR_RETURN(report.envelope, ParseEnvelope(report.json, source, expected_schema, schema_version));
  return report;
}

StatusOr<ReportEnvelope> ParseEnvelope(const json& j, const std::string& source, const std::string& expected_schema,
                                       int schema_version) {
  if (!j.is_object()) return InvalidInputError(source + ": not a JSON object (expected a Touchstone report)");
  ReportEnvelope e;
  e.schema = StringOr(j, "schema");
  if (e.schema != expected_schema) {
    return InvalidInputError(source + ": \"schema\" is '" + e.schema + "', not " + expected_schema +
                             " (a report of another tool, or of an older Touchstone)");
  }
  e.schema_version = static_cast<int>(IntOr(j, "schema_version", 0));
  if (e.schema_version != schema_version) {
    return InvalidInputError(source + ": schema version " + std::to_string(e.schema_version) +
                             " is not the one this build reads (" + std::to_string(schema_version) +
                             "); make the baseline again with this build");
  }
  e.tool = StringOr(j, "tool");
  e.touchstone_version = StringOr(j, "touchstone_version");
  e.start_time = StringOr(j, "start_time");
  const json model = j.value("model", json::object());
  e.model.path = StringOr(model, "path");
  e.model.size_bytes = IntOr(model, "size_bytes", 0);
  e.model.sha256 = StringOr(model, "sha256");
  const json machine = j.value("machine", json::object());
  e.machine.cpu_model = StringOr(machine, "cpu_model");
  e.machine.logical_cores = static_cast<int>(IntOr(machine, "logical_cores", 0));
  e.machine.usable_cores = static_cast<int>(IntOr(machine, "usable_cores", 0));
  e.machine.isa = StringOr(machine, "isa");
  e.machine.os = StringOr(machine, "os");
  e.machine.kernel = StringOr(machine, "kernel");
  e.machine.hostname = StringOr(machine, "hostname");
  e.machine.governor = StringOr(machine, "governor");
  e.machine.cur_freq_khz = IntOr(machine, "cur_freq_khz", 0);
  e.machine.max_freq_khz = IntOr(machine, "max_freq_khz", 0);
  const json config = j.value("configuration", json::object());
  if (!config.is_object()) return InvalidInputError(source + ": has no \"configuration\" object");
  e.config.num_threads = static_cast<int>(IntOr(config, "num_threads", 0));
  e.config.kernels = StringOr(config, "kernels");
  for (const json& d : config.value("delegates", json::array())) {
    ReportedDelegate delegate;
    delegate.provider = StringOr(d, "provider");
    delegate.options = PairsFrom(d.value("options", json::object()));
    delegate.applied = BoolOr(d, "applied");
    delegate.delegate_kernels = static_cast<int>(IntOr(d, "delegate_kernels", 0));
    delegate.fully_delegated = BoolOr(d, "fully_delegated");
    delegate.error = StringOr(d, "error");
    e.config.delegates.push_back(delegate);
  }
  for (const json& in : config.value("inputs", json::array())) {
    ReportedInput input;
    input.name = StringOr(in, "name");
    input.type = StringOr(in, "type");
    if (in.is_object() && in.contains("shape") && in["shape"].is_array()) {
      for (const json& d : in["shape"]) {
        if (!d.is_number_integer()) return InvalidInputError(source + ": an input shape holds a non-integer");
        input.shape.push_back(d.get<int>());
      }
    }
    input.source = StringOr(in, "source");
    e.config.inputs.push_back(input);
  }
  e.config.settings = PairsFrom(config.value("settings", json::object()));
  e.config.flags = PairsFrom(config.value("flags", json::object()));
  if (j.contains("shard") && j["shard"].is_object()) {
    const json& shard = j["shard"];
    e.shard.index = static_cast<int>(IntOr(shard, "index", -1));
    e.shard.count = static_cast<int>(IntOr(shard, "count", 0));
    e.shard.unit = StringOr(shard, "unit");
    e.shard.first = IntOr(shard, "first", -1);
    e.shard.end = IntOr(shard, "end", -1);
    e.shard.total = IntOr(shard, "total", -1);
    if (e.shard.count < 1 || e.shard.index < 0 || e.shard.index >= e.shard.count || e.shard.first < 0 ||
        e.shard.end < e.shard.first || e.shard.total < e.shard.end) {
      return InvalidInputError(source + ": \"shard\" is not a valid shard (index, count, first, end, total)");
    }
  }
  if (j.contains("merged") && j["merged"].is_object()) {
    const json& merged = j["merged"];
    e.merged.shards = static_cast<int>(IntOr(merged, "shards", 0));
    e.merged.unit = StringOr(merged, "unit");
    e.merged.total = IntOr(merged, "total", 0);
    for (const json& h : merged.value("hostnames", json::array())) {
      if (h.is_string()) e.merged.hostnames.push_back(h.get<std::string>());
    }
  }
  return e;
}

std::vector<std::string> ConfigDifferences(const ReportEnvelope& baseline, const ReportEnvelope& current) {
  std::vector<std::string> differences;
  if (baseline.model.sha256 != current.model.sha256) {
    differences.push_back("model sha256 " + Short(baseline.model.sha256) + " -> " + Short(current.model.sha256));
  }
  if (baseline.shard.present() != current.shard.present() ||
      (baseline.shard.present() &&
       (baseline.shard.index != current.shard.index || baseline.shard.count != current.shard.count))) {
    auto part = [](const ShardInfo& s) {
      return s.present() ? "shard " + std::to_string(s.index) + " of " + std::to_string(s.count)
                         : std::string("whole run");
    };
    differences.push_back(part(baseline.shard) + " -> " + part(current.shard));
  }
  const RunConfiguration& b = baseline.config;
  const RunConfiguration& c = current.config;
  if (b.num_threads != c.num_threads) {
    differences.push_back("num_threads " + std::to_string(b.num_threads) + " -> " + std::to_string(c.num_threads));
  }
  if (b.kernels != c.kernels) differences.push_back("kernels " + b.kernels + " -> " + c.kernels);
  const std::string b_delegates = DelegatesText(b.delegates), c_delegates = DelegatesText(c.delegates);
  if (b_delegates != c_delegates) differences.push_back("delegates " + b_delegates + " -> " + c_delegates);
  if (b.inputs.size() != c.inputs.size()) {
    differences.push_back("inputs " + std::to_string(b.inputs.size()) + " -> " + std::to_string(c.inputs.size()));
  } else {
    for (size_t i = 0; i < b.inputs.size(); ++i) {
      const ReportedInput& bi = b.inputs[i];
      const ReportedInput& ci = c.inputs[i];
      if (bi.name != ci.name)
        differences.push_back("input " + std::to_string(i) + " name '" + bi.name + "' -> '" + ci.name + "'");
      if (bi.type != ci.type) differences.push_back("input '" + ci.name + "' type " + bi.type + " -> " + ci.type);
      if (bi.shape != ci.shape) {
        differences.push_back("input '" + ci.name + "' shape " + ShapeString(bi.shape) + " -> " +
                              ShapeString(ci.shape));
      }
      if (bi.source != ci.source)
        differences.push_back("input '" + ci.name + "' source " + bi.source + " -> " + ci.source);
    }
  }
  // Settings by name, in the current run's order, then those only the baseline has.
  for (const auto& setting : c.settings) {
    std::string before = "(absent)";
    for (const auto& s : b.settings) {
      if (s.first == setting.first) before = s.second;
    }
    if (before != setting.second) differences.push_back(setting.first + " " + before + " -> " + setting.second);
  }
  for (const auto& setting : b.settings) {
    bool present = false;
    for (const auto& s : c.settings) present |= s.first == setting.first;
    if (!present) differences.push_back(setting.first + " " + setting.second + " -> (absent)");
  }
  return differences;
}

Status CheckComparable(const ReportEnvelope& baseline, const ReportEnvelope& current, const std::string& baseline_path,
                       bool allow_change, std::string* note) {
  const std::vector<std::string> differences = ConfigDifferences(baseline, current);
  if (differences.empty()) return Status::Ok();
  std::string list;
  for (size_t i = 0; i < differences.size(); ++i) list += (i ? "; " : "") + differences[i];
  if (allow_change) {
    if (note != nullptr) *note = "configuration changed: " + list;
    return Status::Ok();
  }
  return UsageError("--baseline=" + baseline_path + ": the configuration differs from this run's: " + list +
                    " (--allow_config_change compares them anyway)");
}

}  // namespace touchstone
