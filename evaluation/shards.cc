#include "evaluation/shards.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "absl/container/flat_hash_map.h"

namespace touchstone {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string ListText(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) text += (i ? "; " : "") + items[i];
  return text;
}

bool ReadInt(const ordered_json& j, const char* key, int64_t* value) {
  if (!j.contains(key) || !j[key].is_number_integer()) return false;
  *value = j[key].get<int64_t>();
  return true;
}

bool ReadIntArray(const ordered_json& j, const char* key, std::vector<int64_t>* values) {
  if (!j.contains(key) || !j[key].is_array()) return false;
  for (const ordered_json& v : j[key]) {
    if (!v.is_number_integer()) return false;
    values->push_back(v.get<int64_t>());
  }
  return true;
}

}  // namespace

StatusOr<ShardSpec> ShardSpecFromFlags(int64_t shard_index, int64_t num_shards) {
  const bool index_given = shard_index != -1, count_given = num_shards != 0;
  if (!index_given && !count_given) return ShardSpec();
  if (index_given != count_given) {
    return UsageError("--shard_index and --num_shards go together: give both (shard I of N) or neither");
  }
  if (num_shards < 1 || num_shards > 1000000) {
    return UsageError("--num_shards=" + std::to_string(num_shards) + ": must be in [1, 1000000]");
  }
  if (shard_index < 0 || shard_index >= num_shards) {
    return UsageError("--shard_index=" + std::to_string(shard_index) + ": must be in [0, " +
                      std::to_string(num_shards - 1) + "] for --num_shards=" + std::to_string(num_shards));
  }
  ShardSpec spec;
  spec.index = static_cast<int>(shard_index);
  spec.count = static_cast<int>(num_shards);
  return spec;
}

ShardInfo ShardPart(const ShardSpec& spec, int64_t total, const std::string& unit) {
  ShardInfo part;
  part.unit = unit;
  part.total = total;
  if (!spec.enabled()) {
    part.end = total;
    return part;
  }
  part.index = spec.index;
  part.count = spec.count;
  // 128-bit products: total * count may exceed 2^63 for no realistic input, but costs nothing to avoid.
  part.first = static_cast<int64_t>(static_cast<__int128>(total) * spec.index / spec.count);
  part.end = static_cast<int64_t>(static_cast<__int128>(total) * (spec.index + 1) / spec.count);
  return part;
}

std::string DescribeShard(const ShardInfo& part) {
  return fmt::format("Shard {} of {}: {} {} to {} of {} (merge the shard reports with merge_reports)", part.index,
                     part.count, part.unit, part.first, part.end, part.total);
}

Status CheckShardReports(int schema_version, std::vector<ShardReport>* reports) {
  if (reports->empty()) return UsageError("no shard reports to merge");
  const ShardReport& first = reports->front();
  const std::string tool = first.json.is_object() && first.json.contains("tool") && first.json["tool"].is_string()
                               ? first.json["tool"].get<std::string>()
                               : std::string();
  if (tool.empty()) return InvalidInputError(first.path + ": not a Touchstone report (no \"tool\")");
  const std::string schema = "touchstone." + tool + ".report";
  for (ShardReport& r : *reports) {
    const std::string other = r.json.is_object() && r.json.contains("tool") && r.json["tool"].is_string()
                                  ? r.json["tool"].get<std::string>()
                                  : std::string("(none)");
    if (other != tool) {
      return InvalidInputError(r.path + ": a report of " + other + ", not of " + tool + " as " + first.path);
    }
    json envelope_members = json::object();
    for (const char* key : {"schema", "schema_version", "tool", "touchstone_version", "start_time", "model", "machine",
                            "configuration", "shard", "merged"}) {
      if (r.json.contains(key)) envelope_members[key] = json::parse(r.json[key].dump());
    }
    TS_ASSIGN_OR_RETURN(ReportEnvelope envelope, ParseEnvelope(envelope_members, r.path, schema, schema_version));
    r.envelope = envelope;
    // ParseEnvelope reads an unordered object; the merged report keeps the order the tool wrote.
    const ordered_json& config = r.json["configuration"];
    for (auto* pairs : {&r.envelope.config.settings, &r.envelope.config.flags}) {
      const char* key = pairs == &r.envelope.config.settings ? "settings" : "flags";
      if (!config.contains(key) || !config[key].is_object()) continue;
      pairs->clear();
      for (auto it = config[key].begin(); it != config[key].end(); ++it) {
        pairs->emplace_back(it.key(), it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
      }
    }
    if (config.contains("delegates") && config["delegates"].is_array() &&
        config["delegates"].size() == r.envelope.config.delegates.size()) {
      for (size_t d = 0; d < config["delegates"].size(); ++d) {
        const ordered_json& options = config["delegates"][d].value("options", ordered_json::object());
        if (!options.is_object()) continue;
        r.envelope.config.delegates[d].options.clear();
        for (auto it = options.begin(); it != options.end(); ++it) {
          r.envelope.config.delegates[d].options.emplace_back(
              it.key(), it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
        }
      }
    }
    if (!r.envelope.shard.present()) {
      return InvalidInputError(r.path + ": not a shard report (no \"shard\": made without --shard_index/--num_shards)");
    }
  }
  std::stable_sort(reports->begin(), reports->end(), [](const ShardReport& a, const ShardReport& b) {
    return a.envelope.shard.index < b.envelope.shard.index;
  });
  const ShardReport& base = reports->front();
  const int count = base.envelope.shard.count;
  absl::flat_hash_map<int, const ShardReport*> by_index;
  for (const ShardReport& r : *reports) {
    const ShardInfo& s = r.envelope.shard;
    if (s.count != count) {
      return InvalidInputError(r.path + ": shard " + std::to_string(s.index) + " of " + std::to_string(s.count) +
                               ", but " + base.path + " is shard " + std::to_string(base.envelope.shard.index) +
                               " of " + std::to_string(count));
    }
    auto seen = by_index.find(s.index);
    if (seen != by_index.end()) {
      return InvalidInputError("shard " + std::to_string(s.index) + " of " + std::to_string(count) +
                               " is given twice: " + seen->second->path + " and " + r.path);
    }
    by_index[s.index] = &r;
    // The same work, done the same way: the configuration with the shard left out, and the build.
    ReportEnvelope a = base.envelope, b = r.envelope;
    a.shard = ShardInfo();
    b.shard = ShardInfo();
    std::vector<std::string> differences = ConfigDifferences(a, b);
    if (a.touchstone_version != b.touchstone_version) {
      differences.push_back("touchstone_version " + a.touchstone_version + " -> " + b.touchstone_version);
    }
    if (s.unit != base.envelope.shard.unit || s.total != base.envelope.shard.total) {
      differences.push_back("the work " + std::to_string(base.envelope.shard.total) + " " + base.envelope.shard.unit +
                            " -> " + std::to_string(s.total) + " " + s.unit);
    }
    if (!differences.empty()) {
      return InvalidInputError(r.path + ": the configuration differs from " + base.path +
                               "'s: " + ListText(differences) + " (shards of one run only)");
    }
  }
  if (static_cast<int>(by_index.size()) != count) {
    std::vector<int> missing;
    std::string given;
    for (int i = 0; i < count; ++i) {
      if (by_index.count(i) == 0) {
        missing.push_back(i);
      } else {
        given += (given.empty() ? "" : ", ") + std::to_string(i);
      }
    }
    std::string text;
    for (size_t i = 0; i < missing.size() && i < 10; ++i) text += (i ? ", " : "") + std::to_string(missing[i]);
    if (missing.size() > 10) text += ", ...";
    return InvalidInputError(std::string(missing.size() == 1 ? "shard " : "shards ") + text + " of " +
                             std::to_string(count) + (missing.size() == 1 ? " is" : " are") +
                             " missing (given: " + (given.empty() ? std::string("none") : given) + ")");
  }
  int64_t next = 0;
  for (const ShardReport& r : *reports) {
    const ShardInfo& s = r.envelope.shard;
    if (s.first != next) {
      return InvalidInputError(r.path + ": shard " + std::to_string(s.index) + " starts at " + s.unit + " " +
                               std::to_string(s.first) + ", not " + std::to_string(next) +
                               " where the shard before it ended");
    }
    next = s.end;
  }
  if (next != base.envelope.shard.total) {
    return InvalidInputError(reports->back().path + ": the shards end at " + std::to_string(next) + " of " +
                             std::to_string(base.envelope.shard.total) + " " + base.envelope.shard.unit);
  }
  return Status::Ok();
}

ReportEnvelope MergedEnvelope(const std::vector<ShardReport>& shards) {
  ReportEnvelope e = shards.front().envelope;
  e.merged = MergeInfo();
  e.merged.shards = static_cast<int>(shards.size());
  e.merged.unit = e.shard.unit;
  e.merged.total = e.shard.total;
  for (const ShardReport& s : shards) {
    e.merged.hostnames.push_back(s.envelope.machine.hostname);
    if (!s.envelope.start_time.empty() && s.envelope.start_time < e.start_time) e.start_time = s.envelope.start_time;
  }
  e.shard = ShardInfo();
  return e;
}

ordered_json StateNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

bool ReadStateNumber(const ordered_json& j, double* value) {
  if (j.is_number()) {
    *value = j.get<double>();
    return true;
  }
  if (!j.is_string()) return false;
  const std::string text = j.get<std::string>();
  if (text == "nan") {
    *value = std::numeric_limits<double>::quiet_NaN();
  } else if (text == "inf") {
    *value = std::numeric_limits<double>::infinity();
  } else if (text == "-inf") {
    *value = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

ordered_json ShardLatencyJson(const LatencyStats& stats, bool shard) {
  ordered_json j = LatencyStatsJson(stats, false);
  if (!shard) return j;
  const LatencyStats::State s = stats.GetState();
  ordered_json state;
  state["capacity"] = s.capacity;
  state["count"] = s.count;
  state["first"] = {s.first.us, s.first.ns};
  state["last"] = {s.last.us, s.last.ns};
  state["min_us"] = s.min_us;
  state["max_us"] = s.max_us;
  state["sum_us"] = s.sum_us;
  state["sum_squares_us"] = StateNumber(s.sum_squares_us);
  state["min_ns"] = s.min_ns;
  state["max_ns"] = s.max_ns;
  state["mean_ns"] = StateNumber(s.mean_ns);
  state["m2_ns"] = StateNumber(s.m2_ns);
  std::vector<int64_t> run, us, ns, bucket, count;
  for (const KeptLatencySample& k : s.kept) {
    run.push_back(k.run);
    us.push_back(k.us);
    ns.push_back(k.ns);
  }
  for (const auto& b : s.histogram) {
    bucket.push_back(b.first);
    count.push_back(b.second);
  }
  state["kept_run"] = run;
  state["kept_us"] = us;
  state["kept_ns"] = ns;
  state["histogram_bucket"] = bucket;
  state["histogram_count"] = count;
  j["state"] = state;
  return j;
}

StatusOr<LatencyStats> MergedLatency(const std::vector<ShardReport>& shards, const std::string& pointer) {
  LatencyStats merged;
  const ordered_json::json_pointer at(pointer);
  for (const ShardReport& r : shards) {
    const std::string where = r.path + ": " + pointer.substr(1);
    if (!r.json.contains(at) || !r.json[at].is_object() || !r.json[at].contains("state") ||
        !r.json[at]["state"].is_object()) {
      return InvalidInputError(where + " has no \"state\" (not a shard report's latency figure)");
    }
    const ordered_json& j = r.json[at]["state"];
    LatencyStats::State s;
    std::vector<int64_t> first, last, run, us, ns, bucket, count;
    bool ok = ReadInt(j, "capacity", &s.capacity) && ReadInt(j, "count", &s.count) &&
              ReadIntArray(j, "first", &first) && first.size() == 2 && ReadIntArray(j, "last", &last) &&
              last.size() == 2 && ReadInt(j, "min_us", &s.min_us) && ReadInt(j, "max_us", &s.max_us) &&
              ReadInt(j, "sum_us", &s.sum_us) && j.contains("sum_squares_us") &&
              ReadStateNumber(j["sum_squares_us"], &s.sum_squares_us) && ReadInt(j, "min_ns", &s.min_ns) &&
              ReadInt(j, "max_ns", &s.max_ns) && j.contains("mean_ns") && ReadStateNumber(j["mean_ns"], &s.mean_ns) &&
              j.contains("m2_ns") && ReadStateNumber(j["m2_ns"], &s.m2_ns) && ReadIntArray(j, "kept_run", &run) &&
              ReadIntArray(j, "kept_us", &us) && ReadIntArray(j, "kept_ns", &ns) && run.size() == us.size() &&
              run.size() == ns.size() && ReadIntArray(j, "histogram_bucket", &bucket) &&
              ReadIntArray(j, "histogram_count", &count) && bucket.size() == count.size();
    if (!ok) return InvalidInputError(where + ".state is incomplete or holds a value of the wrong kind");
    s.first = {first[0], first[1]};
    s.last = {last[0], last[1]};
    for (size_t i = 0; i < run.size(); ++i) s.kept.push_back({run[i], us[i], ns[i]});
    for (size_t i = 0; i < bucket.size(); ++i) {
      if (bucket[i] < 0 || bucket[i] > std::numeric_limits<int>::max()) {
        return InvalidInputError(where + ".state holds a histogram bucket out of range");
      }
      s.histogram.emplace_back(static_cast<int>(bucket[i]), count[i]);
    }
    std::string error;
    LatencyStats stats = LatencyStats::FromState(s, &error);
    if (!error.empty()) return InvalidInputError(where + ".state: " + error);
    merged.Append(stats);
  }
  return merged;
}

StatusOr<ordered_json> MergedEvalLatencyJson(const std::vector<ShardReport>& shards) {
  ordered_json latency;
  for (const char* figure : {"preprocessing", "inference"}) {
    TS_ASSIGN_OR_RETURN(LatencyStats merged, MergedLatency(shards, std::string("/latency/") + figure));
    latency[figure] = LatencyStatsJson(merged, false);
  }
  return latency;
}

}  // namespace touchstone
