// A plan as a terminal table (100 columns, or 80 without --wide): the lines of the workload,
// the candidates' columns in the workload's units (plan.units), the recommendation and the
// rejections.

#include "plan_text.hpp"
#include "published_text.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/plan_checks.hpp>
#include <rightsize/plan/unit_values.hpp>
#include <rightsize/render/estimate.hpp>
#include <rightsize/render/plan.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <optional>

namespace rightsize {

namespace {

// The simulated distribution of a candidate's latencies when the targets name percentiles, as a
// line after its explanation (docs/model.md, "Latency distributions"); empty otherwise.
std::string percentiles_line(const Spec& s, const Candidate& c) {
  if (!s.workload.inference.targets.names_percentiles() || !c.inference ||
      !c.inference->simulated) {
    return "";
  }
  return "  " + latency_distribution_text(*c.inference->simulated);
}

constexpr std::size_t k_narrow_width = 80;

// A number short enough for a table cell: two significant digits below 10, none above.
std::string compact(double v) {
  if (v >= 100.0) {
    return fmt::format("{:.0f}", v);
  }
  if (v >= 10.0) {
    return fmt::format("{:.0f}", v);
  }
  return fmt::format("{:.2g}", v);
}

// A time, or a band of times, in one unit chosen by the larger value: "25-39ms", "1.1-2.3s".
std::string time_cell(double point, std::optional<Band> band) {
  const double top = band ? band->high : point;
  const auto in = [&](double scale, const char* unit) {
    return band ? fmt::format(
                      "{}-{}{}", compact(band->low * scale), compact(band->high * scale), unit)
                : fmt::format("{}{}", compact(point * scale), unit);
  };
  if (top < 1.0) {
    return in(1e3, "ms");
  }
  if (top < 3600.0) {
    return in(1.0, "s");
  }
  if (top < 86400.0 * 2) {
    return in(1.0 / 3600.0, "h");
  }
  return in(1.0 / 86400.0, "d");
}

std::string rate_cell(double point, std::optional<Band> band) {
  return band ? fmt::format("{:.0f}-{:.0f}", band->low, band->high) : fmt::format("{:.0f}", point);
}

// Image generation runs at a fraction of an image per second per GPU: two significant digits
// below 10 ("0.18-1.4"), whole numbers above.
std::string small_rate_cell(double point, std::optional<Band> band) {
  const auto one = [](double v) {
    return v < 10.0 ? fmt::format("{:.2g}", v) : fmt::format("{:.0f}", v);
  };
  return band ? one(band->low) + "-" + one(band->high) : one(point);
}

// Total GPUs first, then how they are laid out: "1", "2 (TP2)", "16 (8xTP2)". On-prem, the GPUs
// bought in whole servers of 8: "16 (2x8)".
std::string gpus_cell(const Candidate& c) {
  if (c.cost.gpus_bought > 0) {
    const std::string split = c.disaggregation
                                  ? fmt::format(", {}P+{}D",
                                                c.disaggregation->pools.layout.prefill.replicas,
                                                c.disaggregation->pools.layout.decode.replicas)
                                  : std::string();
    return fmt::format(
        "{} ({}x{}{})", c.cost.gpus_bought, c.cost.servers, c.cost.gpus_per_server, split);
  }
  if (c.disaggregation) {
    return fmt::format("{} ({})", c.total_gpus(), replicas_text(c));
  }
  if (c.replicas > 1) {
    return fmt::format("{} ({}x{})", c.total_gpus(), c.replicas, layout_text(c));
  }
  if (c.total_gpus() > 1) {
    return fmt::format("{} ({})", c.total_gpus(), layout_text(c));
  }
  return "1";
}

// The GPU, or for a MIG slice the GPU without its memory suffix and the profile:
// "H100-SXM/1g.10gb".
std::string gpu_cell(const Candidate& c) {
  if (c.partition.empty() || c.whole_gpu == nullptr) {
    return c.gpu->name;
  }
  std::string name = c.whole_gpu->name;
  const auto dash = name.rfind('-');
  if (dash != std::string::npos && name.size() > 2 && name.compare(name.size() - 2, 2, "GB") == 0) {
    name.resize(dash);
  }
  // The table fits 80 columns with a 19-character GPU cell: a long family name loses its dashes
  // ("RTXPRO6000/2g.48gb"); --wide and JSON keep the full "<GPU> <profile>" name.
  if (name.size() + 1 + c.partition.size() > 19) {
    name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
  }
  return name + "/" + c.partition;
}

std::string math_of(const Candidate& c) {
  return std::string(
      to_string(c.inference ? c.inference->compute_precision : c.training->compute_precision));
}

// Weights / KV cache / math. Narrow: the weights' format, "*" when the math runs in another
// format (weight-only kernels), and "/kv" when the KV cache differs: "fp8", "fp8*", "bf16/fp8".
std::string precision_cell(const Candidate& c, bool wide) {
  const std::string w(to_string(c.spec->precision.weights));
  const std::string math = math_of(c);
  if (c.training) {
    return w == math ? w : w + "/" + math;
  }
  const std::string kv(to_string(c.spec->precision.kv_cache));
  if (wide) {
    return fmt::format("{}/{}/{}", w, kv, math);
  }
  // bf16 math under fp16 weights (or the reverse) is the same width: no mark.
  const auto sixteen = [](const std::string& f) { return f == "bf16" || f == "fp16"; };
  const bool other_math = math != w && !(sixteen(math) && sixteen(w));
  return w + (other_math ? "*" : "") + (kv != w ? "/" + kv : "");
}

struct Column {
  std::string header;
  bool left = false; // text columns align left, numbers right
  std::vector<std::string> cells;
};

void print_columns(const std::vector<Column>& columns, std::ostream& out) {
  std::vector<std::size_t> width;
  for (const auto& c : columns) {
    std::size_t w = c.header.size();
    for (const auto& cell : c.cells) {
      w = std::max(w, cell.size());
    }
    width.push_back(w);
  }
  const auto row = [&](const std::function<const std::string&(const Column&)>& text) {
    std::string line;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& t = text(columns[i]);
      const bool last = i + 1 == columns.size();
      if (i > 0) {
        line += ' ';
      }
      line += columns[i].left ? (last ? t : fmt::format("{:<{}}", t, width[i]))
                              : fmt::format("{:>{}}", t, width[i]);
    }
    out << line << '\n';
  };
  row([](const Column& c) -> const std::string& { return c.header; });
  const std::size_t rows = columns.empty() ? 0 : columns.front().cells.size();
  for (std::size_t r = 0; r < rows; ++r) {
    row([r](const Column& c) -> const std::string& { return c.cells[r]; });
  }
}

// Serving columns. An embedding workload shows a sequence's latency and sequences per second
// where generation shows TTFT and TPOT, tokens embedded per second for output tokens, and its $
// per million tokens is per input token; an image embedding workload, images per second and $
// per thousand images; a transcription workload, a request's latency, audio seconds transcribed

// Whether a candidate's cloud price is stale or of low confidence: its ranking rests on it.
bool doubtful_price(const Candidate& c) {
  return c.cost.price_stale || c.cost.price_low_confidence;
}

// The TCO, marked "!" when the price it rests on is stale or of low confidence (the footnote).
std::string tco_cell(const Candidate& c) {
  return money(c.cost.tco.si()) + (doubtful_price(c) ? "!" : "");
}

// Serving columns, in the workload's units: TTFT and TPOT, or a request's whole latency and the
// workload's rate (sequences, images, audio seconds per second); the tokens per second its price
// per token counts (output tokens, tokens embedded); the price in its own unit ($ per million
// tokens, per thousand images, per audio hour).
std::vector<Column>
inference_columns(const WorkloadUnits& u, const std::vector<const Candidate*>& rows, bool wide) {
  std::vector<Column> cols{{"#", false, {}},
                           {"GPU", true, {}},
                           {"GPUS", true, {}},
                           {wide ? "W/KV/MATH" : "W/KV", true, {}}};
  if (wide) {
    cols.push_back({"MEM/GPU", false, {}});
  }
  cols.push_back({std::string(names(u.latency).table), false, {}});
  cols.push_back({u.shows_tpot() ? "TPOT" : std::string(names(u.rate).table), false, {}});
  if (wide) {
    cols.push_back({"TOK/S", false, {}});
    cols.push_back({"$/HOUR", false, {}});
  }
  cols.push_back({std::string(names(u.price).table), false, {}});
  cols.push_back({"TCO", false, {}});
  cols.push_back({"SIZED", true, {}});
  const auto rate = u.fractional_rate ? small_rate_cell : rate_cell;
  for (const auto* c : rows) {
    const auto& i = *c->inference;
    const auto& b = c->inference_bands;
    std::size_t k = 0;
    cols[k++].cells.push_back(std::to_string(c->rank));
    cols[k++].cells.push_back(gpu_cell(*c));
    cols[k++].cells.push_back(gpus_cell(*c));
    cols[k++].cells.push_back(precision_cell(*c, wide));
    if (wide) {
      cols[k++].cells.push_back(fmt::format(
          "{:.1f}/{:.0f}G", to_gib(c->memory.per_gpu.total()), to_gib(c->memory.budget)));
    }
    cols[k++].cells.push_back(
        time_cell(i.ttft.si(), b ? std::optional<Band>(b->ttft) : std::nullopt));
    cols[k++].cells.push_back(
        u.shows_tpot()
            ? time_cell(i.tpot.si(), b ? std::optional<Band>(b->tpot) : std::nullopt)
            : rate(rate_of(i, u.rate),
                   b ? std::optional<Band>(rate_band_of(*b, *c->spec, u.rate)) : std::nullopt));
    if (wide) {
      cols[k++].cells.push_back(
          u.shows_tpot() ? rate_cell(i.output_tokens_per_s,
                                     b ? std::optional<Band>(b->output_tokens_per_s) : std::nullopt)
                         : fmt::format("{:.0f}", tokens_of(i, u.tokens)));
      cols[k++].cells.push_back(money(c->cost.per_hour.si()));
    }
    const auto per_unit = price_of(c->cost, u.price);
    cols[k++].cells.push_back(per_unit ? money(*per_unit) : "-");
    cols[k++].cells.push_back(tco_cell(*c));
    cols[k++].cells.push_back(short_verdict(c->verdict));
  }
  return cols;
}

std::vector<Column> training_columns(const std::vector<const Candidate*>& rows, bool wide) {
  std::vector<Column> cols{
      {"#", false, {}}, {"GPU", true, {}}, {"GPUS", true, {}}, {"W/MATH", true, {}}};
  if (wide) {
    cols.push_back({"MEM/GPU", false, {}});
  }
  cols.push_back({"STEP", false, {}});
  cols.push_back({"MFU", false, {}});
  cols.push_back({"TIME", false, {}});
  if (wide) {
    cols.push_back({"$/HOUR", false, {}});
  }
  cols.push_back({"TCO", false, {}});
  cols.push_back({"SIZED", true, {}});
  for (const auto* c : rows) {
    const auto& t = *c->training;
    const auto& b = c->training_bands;
    std::size_t k = 0;
    cols[k++].cells.push_back(std::to_string(c->rank));
    cols[k++].cells.push_back(c->gpu->name);
    cols[k++].cells.push_back(gpus_cell(*c));
    cols[k++].cells.push_back(precision_cell(*c, true));
    if (wide) {
      cols[k++].cells.push_back(fmt::format(
          "{:.1f}/{:.0f}G", to_gib(c->memory.per_gpu.total()), to_gib(c->memory.capacity)));
    }
    cols[k++].cells.push_back(
        time_cell(t.step.si(), b ? std::optional<Band>(b->step) : std::nullopt));
    cols[k++].cells.push_back(fmt::format("{:.0f}%", 100.0 * t.mfu));
    cols[k++].cells.push_back(
        t.time_to_train ? time_cell(t.time_to_train->si(),
                                    b ? std::optional<Band>(b->time_to_train) : std::nullopt)
                        : "-");
    if (wide) {
      cols[k++].cells.push_back(money(c->cost.per_hour.si()));
    }
    cols[k++].cells.push_back(tco_cell(*c));
    cols[k++].cells.push_back(short_verdict(c->verdict));
  }
  return cols;
}

// Rejections with the same code, reason and fix, as one group. The table says "not rentable"
// once for every GPU no cloud rents at a public price: each one's reason is its own (JSON and
// `catalog show` give it), and a dozen one-line groups would bury the other rejections.
struct RejectionGroup {
  std::vector<std::string> gpus;
  const Rejection* first = nullptr;
  std::string reason;
};

std::string table_reason(const Rejection& r) {
  if (r.code == "no_price" && r.reason.rfind("not rentable: ", 0) == 0) {
    return "not rentable at a public price (rightsize catalog show NAME says why)";
  }
  return r.reason;
}

std::vector<RejectionGroup> group_rejections(const std::vector<Rejection>& rejected) {
  std::vector<RejectionGroup> groups;
  for (const auto& r : rejected) {
    const std::string reason = table_reason(r);
    auto same = std::find_if(groups.begin(), groups.end(), [&](const RejectionGroup& g) {
      return g.first->code == r.code && g.reason == reason && g.first->nearest_fix == r.nearest_fix;
    });
    if (same == groups.end()) {
      groups.push_back({{}, &r, reason});
      same = std::prev(groups.end());
    }
    same->gpus.push_back(r.gpu);
  }
  return groups;
}

std::string names_text(const std::vector<std::string>& names) {
  constexpr std::size_t k_listed = 4;
  if (names.size() <= k_listed) {
    return fmt::format("{}", fmt::join(names, ", "));
  }
  return fmt::format("{} and {} more",
                     fmt::join(names.begin(), names.begin() + k_listed, ", "),
                     names.size() - k_listed);
}

// Too few measured training lines for an 80% band: the step-time band is their envelope, and the
// table says so under the rows.
std::optional<std::string> unsized_training_line(const std::vector<const Candidate*>& rows) {
  if (rows.empty() || !rows.front()->training_bands ||
      !rows.front()->training_bands->step_ratio.unsized) {
    return std::nullopt;
  }
  return fmt::format("training step time: band unsized, {} measured lines (their envelope, not an "
                     "80% band)",
                     rows.front()->training_bands->step_ratio.lines);
}

// ", 4 replicas", ", 2 prefill + 3 decode replicas, disaggregated", or "" for one replica.
std::string replicas_words(const Candidate& c) {
  if (c.disaggregation) {
    const DisaggregatedLayout& l = c.disaggregation->pools.layout;
    return fmt::format(", {} prefill + {} decode replica{}, disaggregated",
                       l.prefill.replicas,
                       l.decode.replicas,
                       l.decode.replicas == 1 ? "" : "s");
  }
  return c.replicas > 1 ? fmt::format(", {} replicas", c.replicas) : "";
}

// A disaggregated recommendation's pools and why it beat the aggregated one, or why an
// attention data-parallel layout ("" otherwise).
std::string layout_lines(const Candidate& best) {
  if (!best.disaggregation) {
    return best.layout_note.empty() ? "" : "  attention data-parallel: " + best.layout_note;
  }
  return "  disaggregated: " + disaggregation_text(best.disaggregation->pools) + "; " +
         best.disaggregation->why;
}

// The marks of the ranking table's cells: "*" (weights in one format, math in another) and "!"
// (a stale or low-confidence price).
void print_footnotes(const Plan& plan,
                     const std::vector<const Candidate*>& rows,
                     const RenderOptions& o,
                     std::ostream& out) {
  if (!o.wide && plan.units.serving &&
      std::any_of(rows.begin(), rows.end(), [](const Candidate* c) {
        return precision_cell(*c, false).find('*') != std::string::npos;
      })) {
    out << "* weights in that format, math in 16-bit (weight-only kernels; --wide shows all)\n";
  }
  if (std::any_of(
          rows.begin(), rows.end(), [](const Candidate* c) { return doubtful_price(*c); })) {
    out << "! the price is STALE or of low confidence (rightsize catalog show NAME says which)\n";
  }
}

} // namespace

void render_plan_table(const Plan& plan, const RenderOptions& o, std::ostream& out) {
  const Spec& s = plan.spec;
  const std::size_t width = o.wide ? std::string::npos : k_narrow_width;
  const auto bold = [&](const std::string& t) { return o.color ? "\033[1m" + t + "\033[0m" : t; };
  const auto line = [&](const std::string& text, std::size_t indent) {
    out << (text.empty() ? std::string() : wrap(text, width, indent) + '\n');
  };
  out << bold(fmt::format("{}: {}", s.name, s.model.name)) << '\n';
  line("  workload:     " + workload_line(plan), 16);
  line("  requirements: " + requirements_line(plan), 16);
  line("  targets:      " + targets_line(plan), 16);
  line("  deployment:   " +
           (s.deployment.mode == DeploymentMode::cloud
                ? fmt::format("cloud, {} prices, {} month{}, demand +{:.0f}%/month",
                              s.deployment.price_kind,
                              s.deployment.horizon_months,
                              s.deployment.horizon_months == 1 ? "" : "s",
                              100.0 * s.deployment.growth_per_month)
                : fmt::format("on-prem, {} months, demand +{:.0f}%/month",
                              s.deployment.horizon_months,
                              100.0 * s.deployment.growth_per_month)) +
           ", ranked by " + objective_text(plan),
       16);
  if (!plan.uncertainty_note.empty()) {
    line("  margins:      " + plan.uncertainty_note, 16);
  }
  for (const auto& note : plan.notes) {
    line("  note:         " + note, 16);
  }
  out << '\n';
  if (!plan.feasible() && !infeasible_because(plan).empty()) {
    const std::string head = "nothing feasible";
    out << bold(head) << wrap(head + ": " + infeasible_because(plan), width, 2).substr(head.size())
        << '\n';
  } else if (!plan.feasible()) {
    out << bold("nothing feasible") << ": no GPU configuration meets the spec; closest misses:\n";
  } else {
    const auto rows = shown(plan, o);
    print_columns(plan.units.serving ? inference_columns(plan.units, rows, o.wide)
                                     : training_columns(rows, o.wide),
                  out);
    print_footnotes(plan, rows, o, out);
    if (rows.size() < plan.candidates.size()) {
      out << fmt::format("({} more candidates: --top {} or --format json)\n",
                         plan.candidates.size() - rows.size(),
                         plan.candidates.size());
    }
    for (const auto& text : uncalibrated_lines(rows)) {
      line("uncalibrated: " + text, 2);
    }
    if (const auto text = unsized_training_line(rows)) {
      line(*text, 2);
    }
  }
  if (plan.feasible()) {
    out << '\n';
    const auto& best = plan.candidates.front();
    out << bold(wrap(fmt::format("recommended: {} x {} ({}{}): {}, {}",
                                 best.total_gpus(),
                                 best.partition.empty()
                                     ? best.gpu->name
                                     : best.partition + " MIG slice of " + best.whole_gpu->name,
                                 layout_text(best),
                                 replicas_words(best),
                                 best.verdict,
                                 best.verdict_reason),
                     width,
                     2))
        << '\n';
    line("  " + (best.inference ? best.inference->explanation : best.training->explanation), 4);
    line(layout_lines(best), 4);
    line(percentiles_line(s, best), 4);
    line("  price " + best.cost.price_label + (best.cost.price_stale ? " STALE" : "") + "; " +
             best.cost.basis,
         4);
    if (best.cost.stops_meeting_targets_month) {
      const MonthCost& last = best.cost.months.back();
      line(fmt::format("  with demand growing {:.0f}%/month {} stop{} meeting the targets in "
                       "month {}; the cost adds replicas month by month, {} by month {} ({} "
                       "GPUs{}; JSON cost.months)",
                       100.0 * s.deployment.growth_per_month,
                       best.replicas == 1 ? std::string("its one replica")
                                          : fmt::format("its {} replicas", best.replicas),
                       best.replicas == 1 ? "s" : "",
                       *best.cost.stops_meeting_targets_month,
                       last.replicas,
                       last.month,
                       last.gpus,
                       last.concurrency
                           ? fmt::format(" for {} concurrent requests", *last.concurrency)
                           : std::string()),
           4);
    }
    if (!best.precision_note.empty()) {
      line("  precision: " + best.precision_note, 4);
    }
    if (best.calibration && !best.calibration->measured) {
      line("  UNCALIBRATED: " + best.calibration->text, 4);
    }
    if (best.published) {
      line("  " + published_line(*best.published), 4);
    }
    if (best.partition.empty()) {
      line("  check it: rightsize " + estimate_args(plan, best), 4);
    }
  }
  if (!plan.rejected.empty()) {
    const auto groups = group_rejections(plan.rejected);
    out << "\nnot recommended (" << plan.rejected.size() << " GPUs):\n";
    std::size_t listed = 0;
    for (const auto& g : groups) {
      if (o.top > 0 && listed >= static_cast<std::size_t>(o.top)) {
        const std::size_t more = groups.size() - listed;
        out << fmt::format(
            "  ... {} more group{} (--format json lists every one)\n", more, more == 1 ? "" : "s");
        break;
      }
      ++listed;
      const Rejection& r = *g.first;
      std::string text =
          r.code == "constraint" && g.gpus.size() > 1
              ? fmt::format(
                    "  {} GPUs excluded: {} ({})", g.gpus.size(), g.reason, names_text(g.gpus))
              : fmt::format("  {}: {}", names_text(g.gpus), g.reason);
      if (!r.nearest_fix.empty()) {
        text += " (try: " + r.nearest_fix + ")";
      }
      line(text, 4);
    }
  }
  std::string assumptions = fmt::format(
      "assumptions: prices per GPU-hour from the catalog (rightsize catalog show NAME); {:g} "
      "h/month",
      s.deployment.hours_per_month);
  if (s.deployment.mode == DeploymentMode::onprem) {
    assumptions += fmt::format(", PUE {:g}, ${:g}/kWh, {:.0f}% utilization, {:g}-year amortization",
                               s.deployment.pue,
                               s.deployment.electricity_usd_per_kwh,
                               100.0 * s.deployment.utilization,
                               s.deployment.amortization_years);
  }
  assumptions += "; memory and efficiency constants in data/ (--format json lists every one)";
  out << '\n';
  line(assumptions, 2);
}

} // namespace rightsize
