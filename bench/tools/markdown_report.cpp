#include <cstdio>
#include <sstream>

#include "render.hpp"

namespace graft_bench {
namespace {

std::string number(double v, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

std::string met_text(const row& r) {
  if (!r.met) return r.applies ? "?" : "-";
  if (*r.met) return "yes";
  return r.miss_within_noise ? "**no** (within noise)" : "**no**";
}

std::string ratio_text(const row& r) {
  if (!r.ratio) return "-";
  return number(*r.ratio, "%.3f") + "x" + (r.below_floor ? " **below its floor**" : "");
}

// Per spec: the worst figure where its target applies, and whether the
// target is met: "**no**" when any figure misses it beyond its noise, "**no**
// (within noise)" when every miss is within it.
void summary(std::ostringstream& out, const std::vector<row>& rows) {
  out << "## Targets\n\n"
      << "| case | what | target | worst measured (dtype, size) | met? |\n"
      << "| --- | --- | --- | --- | --- |\n";
  for (const case_spec& spec : case_specs()) {
    if (spec.kind == target_kind::none) continue;
    const row* worst = nullptr;
    double worst_value = 0;
    bool any = false;
    bool clear_miss = false;  // a miss beyond its noise anywhere, not only at the worst figure
    for (const row& r : rows) {
      if (r.spec != &spec || !r.applies) continue;
      any = true;
      clear_miss = clear_miss || (r.met == false && !r.miss_within_noise);
      double v = 0;
      switch (spec.kind) {
        case target_kind::max_ratio: v = r.ratio.value_or(0); break;
        case target_kind::max_ns: v = r.measured->median_ns; break;
        case target_kind::min_bandwidth_share: v = -r.bandwidth_share.value_or(0); break;
        case target_kind::none: break;
      }
      if (worst == nullptr || v > worst_value) {
        worst = &r;
        worst_value = v;
      }
    }
    out << "| " << spec.id << " | " << spec.title << " | " << describe_target(spec) << " | ";
    if (!any || worst == nullptr) {
      out << "not run | - |\n";
      continue;
    }
    const std::string where = " (" + (worst->measured->dtype.empty() ? "-" : worst->measured->dtype) +
                              (worst->measured->bytes ? ", " + size_text(*worst->measured->bytes) : "") + ")";
    switch (spec.kind) {
      case target_kind::max_ns: out << time_text(worst->measured->median_ns) << where; break;
      case target_kind::min_bandwidth_share:
        out << (worst->bandwidth_share ? number(*worst->bandwidth_share * 100, "%.1f") + "%" : "-") << where;
        break;
      default: out << ratio_text(*worst) << where; break;
    }
    out << " | " << (clear_miss ? "**no**" : met_text(*worst)) << " |\n";
  }
  out << "\n";
}

// A floor does less than what it floors (copy_ against a write that also
// validates, raw Gloo against an exchange that also sends headers), so a
// figure under it beyond the noise says the floor, or the measurement, is
// wrong: named here rather than left as a flattering ratio.
void below_floors(std::ostringstream& out, const std::vector<row>& rows) {
  std::ostringstream found;
  for (const row& r : rows) {
    if (!r.below_floor) continue;
    found << "- `" << r.measured->name << "`: " << time_text(r.measured->median_ns) << " against `"
          << r.floor->name << "`'s " << time_text(r.floor->median_ns) << ", " << number(*r.ratio, "%.3f") << "x ("
          << (r.noise ? "cv " + number(*r.noise * 100, "%.1f") + "%" : "no repetitions: noise unknown") << ")\n";
  }
  if (found.str().empty()) return;
  out << "## Faster than their floor\n\n"
      << "Each floor does less work than what it floors, so these figures say that the floor or the "
         "measurement is wrong, or that the machine was busier while the floor ran (rerun with "
         "repetitions, interleaved):\n\n"
      << found.str() << "\n";
}

// Where and how each input ran: the ratios of the CPU passes depend on the
// threads they had, and every figure on the build type.
void runs(std::ostringstream& out, const std::vector<bench_file>& inputs) {
  out << "## Runs\n\n"
      << "| input | date | host | CPUs | MHz | graft build | CPU pass threads |\n"
      << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const bench_file& in : inputs) {
    const auto field = [&](const char* key) {
      const auto it = in.context.find(key);
      return it == in.context.end() ? std::string("-") : it->second;
    };
    out << "| `" << in.path << "` | " << field("date") << " | " << field("host_name") << " | " << field("num_cpus")
        << " | " << field("mhz_per_cpu") << " | " << field("graft_build_type") << " | "
        << field("graft_cpu_pass_threads") << " |\n";
  }
  out << "\n";
}

}  // namespace

std::string time_text(double ns) {
  if (ns < 1e3) return number(ns, "%.3g ns");
  if (ns < 1e6) return number(ns / 1e3, "%.3g us");
  if (ns < 1e9) return number(ns / 1e6, "%.3g ms");
  return number(ns / 1e9, "%.3g s");
}

std::string markdown_report(const std::map<std::string, result>& results, const std::vector<row>& rows,
                            const std::vector<bench_file>& inputs) {
  std::ostringstream out;
  out << "# graft bench report\n\n"
      << "Every ratio divides a variant's median real time by its floor's, measured in the same run "
         "(same executable, same process, same dtype and size); absolute times only hold on the machine "
         "that ran them. cv is the combined coefficient of variation of both medians (with "
         "`--benchmark_repetitions`); figures whose cv exceeds their margin are noise.\n\n";
  runs(out, inputs);
  summary(out, rows);
  below_floors(out, rows);

  out << "## All figures\n\n"
      << "| case | variant | dtype | size | time | floor | ratio | GB/s | share of floor GB/s | cv | target | "
         "met? |\n"
      << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const row& r : rows) {
    const result& m = *r.measured;
    out << "| " << r.spec->id << " | " << m.name << " | " << (m.dtype.empty() ? "-" : m.dtype) << " | "
        << (m.bytes ? size_text(*m.bytes) : "-") << " | "
        << (m.error.empty() ? time_text(m.median_ns) : "skipped: " + m.error) << " | "
        << (r.floor != nullptr ? time_text(r.floor->median_ns) : "-") << " | " << ratio_text(r) << " | "
        << (r.bandwidth_gbs ? number(*r.bandwidth_gbs, "%.2f") : "-") << " | "
        << (r.bandwidth_share ? number(*r.bandwidth_share * 100, "%.1f") + "%" : "-") << " | "
        << (r.noise ? number(*r.noise * 100, "%.1f") + "%" : "-") << " | "
        << (r.applies ? describe_target(*r.spec) : "-") << " | " << met_text(r) << " |\n";
  }

  std::ostringstream skipped;
  for (const auto& [name, r] : results) {
    if (!r.error.empty()) skipped << "- `" << name << "`: " << r.error << "\n";
  }
  if (!skipped.str().empty()) out << "\n## Skipped\n\n" << skipped.str();
  return out.str();
}

}  // namespace graft_bench
