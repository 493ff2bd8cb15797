// The HTML, CSS and SVG of the optimize report (agent/report.hpp): the page's style sheet, the chart, the tables,
// the diff and the heat strips, and render_report's body. Included by agent/report.hpp only, after its
// declarations, where the body is compiled (header-only, or the agent module's translation unit under separate
// compilation); include report.hpp, not this.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace asmevo::agent {

namespace detail::report {

// ---- text ---------------------------------------------------------------------------------------------------------

/// Appends `s` escaped for HTML text and for quoted attribute values. C0 controls other than tab and newline (never
/// in assembly text, and not allowed in HTML) become U+FFFD.
inline void esc_to(std::string& o, std::string_view s) {
  for (const char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      case '\t':
      case '\n': o += c; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          o += "\xEF\xBF\xBD";
        else
          o += c;
    }
  }
}

[[nodiscard]] inline std::string esc(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 8);
  esc_to(o, s);
  return o;
}

/// At most `n` bytes of `s`, cut on a UTF-8 character boundary, with "..." when cut.
[[nodiscard]] inline std::string clip(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "...";
}

/// `v` with `decimals` digits after the point; a non-finite `v` prints as 0 (callers skip such values; this keeps
/// "nan" out of SVG coordinates whatever happens).
[[nodiscard]] inline std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) v = 0;
  char b[512];
  std::snprintf(b, sizeof b, "%.*f", std::clamp(decimals, 0, 9), v);
  std::string s = b;
  if (s.starts_with("-0") && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);  // "-0.0" -> "0.0"
  return s;
}

/// An SVG coordinate (one decimal).
[[nodiscard]] inline std::string xy(double v) { return fixed(v, 1); }

/// 12345 -> "12,345".
[[nodiscard]] inline std::string grouped(std::uint64_t v) {
  std::string s = std::to_string(v);
  for (std::ptrdiff_t i = static_cast<std::ptrdiff_t>(s.size()) - 3; i > 0; i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

/// A cost or cycle count for people: "12,345", "57.5", "7.25", "n/a" when not finite.
[[nodiscard]] inline std::string value(double v) {
  if (!std::isfinite(v)) return "n/a";
  const double a = std::fabs(v);
  if (a >= 1e15) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
  }
  if (a >= 100) return (v < 0 ? "-" : "") + grouped(static_cast<std::uint64_t>(std::llround(a)));
  std::string s = fixed(v, a >= 10 ? 1 : 2);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

/// "1.23x", or "n/a" when `s` is not a positive finite ratio.
[[nodiscard]] inline std::string times(double s) { return std::isfinite(s) && s > 0 ? fixed(s, 2) + "x" : "n/a"; }

/// A fraction as a percentage: 0.345 -> "34.5%".
[[nodiscard]] inline std::string percent(double f) { return std::isfinite(f) ? fixed(100 * f, 1) + "%" : "n/a"; }

/// Wall time: "42.0 s", "3m 07s", "2h 05m".
[[nodiscard]] inline std::string duration(double s) {
  if (!std::isfinite(s) || s < 0) return "n/a";
  char b[64];
  if (s < 60) {
    std::snprintf(b, sizeof b, "%.1f s", s);
  } else {
    const auto t = static_cast<std::uint64_t>(std::llround(s));
    if (t < 3600)
      std::snprintf(b, sizeof b, "%llum %02llus", static_cast<unsigned long long>(t / 60),
                    static_cast<unsigned long long>(t % 60));
    else
      std::snprintf(b, sizeof b, "%lluh %02llum", static_cast<unsigned long long>(t / 3600),
                    static_cast<unsigned long long>(t / 60 % 60));
  }
  return b;
}

/// cost_before / cost, or NaN when either is not a positive finite cost (an untimed attempt has no speedup).
[[nodiscard]] inline double ratio(double before, double cost) {
  if (!(std::isfinite(before) && before > 0 && std::isfinite(cost) && cost > 0))
    return std::numeric_limits<double>::quiet_NaN();
  const double r = before / cost;
  return std::isfinite(r) ? r : std::numeric_limits<double>::quiet_NaN();
}

// ---- scales and colours -------------------------------------------------------------------------------------------

/// A 1, 2 or 5 times a power of ten near span / target: the tick step of an axis.
[[nodiscard]] inline double nice_step(double span, double target) {
  if (!(std::isfinite(span) && span > 0)) return 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/// Digits after the point that a tick step needs (0.05 -> 2, 0.5 -> 1, 5 -> 0).
[[nodiscard]] inline int decimals_for(double step) {
  return step >= 1 ? 0 : std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 6);
}

/// The multiples of `step` in [lo, hi] (at most 60 of them).
[[nodiscard]] inline std::vector<double> ticks(double lo, double hi, double step) {
  std::vector<double> t;
  if (!(std::isfinite(lo) && std::isfinite(hi) && step > 0)) return t;
  const double k0 = std::ceil(lo / step - 1e-9), k1 = std::floor(hi / step + 1e-9);
  for (double k = k0; k <= k1 && t.size() < 60; k += 1) t.push_back(k * step);
  return t;
}

/// Heat colour for t in [0, 1]: amber (cool, still visible on white) through orange to deep red (hot).
[[nodiscard]] inline std::string heat_colour(double t) {
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0);
  constexpr std::array<std::array<double, 3>, 3> stop{{{244, 192, 92}, {236, 116, 38}, {165, 15, 21}}};
  const std::size_t i = t < 0.5 ? 0 : 1;
  const double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  const auto channel = [&](std::size_t c) {
    return static_cast<unsigned>(std::lround(stop[i][c] + u * (stop[i + 1][c] - stop[i][c])));
  };
  char b[16];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", channel(0), channel(1), channel(2));
  return b;
}

/// An attempt outcome's CSS class (colour) and label. Unknown outcomes share the last slot.
struct OutcomeStyle {
  std::string_view name, cls, label;
};
inline constexpr std::array<OutcomeStyle, 8> outcomes{{{"accepted", "o-acc", "accepted"},
                                                       {"slower", "o-slow", "slower"},
                                                       {"not_equivalent", "o-neq", "not equivalent"},
                                                       {"invalid", "o-inv", "invalid"},
                                                       {"no_proposal", "o-none", "no proposal"},
                                                       {"unchanged", "o-none", "changed nothing"},
                                                       {"failed", "o-fail", "failed"},
                                                       {"", "o-other", "other"}}};

[[nodiscard]] inline std::size_t outcome_slot(std::string_view o) {
  for (std::size_t i = 0; i + 1 < outcomes.size(); ++i)
    if (outcomes[i].name == o) return i;
  return outcomes.size() - 1;
}

/// Line colours of the lineages, in order (the eighth lineage reuses the first colour).
inline constexpr std::array<std::string_view, 8> lineage_colours{"#1f6fd1", "#e8590c", "#0f9fb5", "#c2255c",
                                                                 "#5f3dc4", "#7a8a00", "#8c564b", "#364fc7"};

inline constexpr std::string_view css = R"css(
:root{--fg:#1d2330;--muted:#667085;--line:#e4e7ec;--panel:#f6f7f9;--ok:#1e7d3a;--warn:#b45309;--code:#0f172a}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);
background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px 20px 64px}
h1{font-size:20px;margin:0 0 2px;font-weight:650}
h2{font-size:16px;margin:36px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:22px 0 6px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
.sub,.muted,.caption{color:var(--muted)}
.caption{font-size:12.5px;margin:4px 0 0}
.empty{color:var(--muted);font-style:italic;padding:10px 14px;background:var(--panel);border-radius:8px}
nav{margin:14px 0 0;font-size:13px}
nav a{color:var(--muted);margin-right:14px;text-decoration:none}
nav a:hover{color:var(--fg);text-decoration:underline}
.verdict{display:flex;gap:28px;align-items:center;flex-wrap:wrap;margin:16px 0 0;padding:16px 22px;border-radius:10px;
background:var(--panel);border-left:6px solid var(--warn)}
.verdict.ok{border-left-color:var(--ok)}
.big{font-size:44px;font-weight:700;letter-spacing:-1px;line-height:1}
.badge{display:inline-block;font-weight:600;font-size:12.5px;padding:2px 10px;border-radius:999px;color:#fff;
background:var(--warn)}
.ok .badge{background:var(--ok)}
.cost{font-size:16px;margin-top:6px}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:6px 22px;margin:16px 0 0}
.facts div{min-width:0;overflow-wrap:anywhere}
.facts dt{font-size:11.5px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.facts dd{margin:0}
svg{display:block;width:100%;height:auto}
svg text{font-size:11px;fill:var(--muted);font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
svg text.title{font-size:12px;fill:var(--fg)}
.grid{stroke:#eef0f3;stroke-width:1}
.axis{stroke:#98a2b3;stroke-width:1}
.base{stroke:#98a2b3;stroke-width:1;stroke-dasharray:4 3}
.lane{stroke:#eef0f3;stroke-width:10}
polyline.best{fill:none;stroke-width:2.2;stroke-linejoin:round}
circle.dot{stroke:#fff;stroke-width:.7;fill-opacity:.9}
.o-acc{fill:#2e7d32;background:#2e7d32}.o-slow{fill:#f2a93b;background:#f2a93b}
.o-neq{fill:#d32f2f;background:#d32f2f}.o-inv{fill:#8e44ad;background:#8e44ad}
.o-none{fill:#a0a6b1;background:#a0a6b1}.o-fail{fill:#344054;background:#344054}
.o-other{fill:#5b7c99;background:#5b7c99}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12.5px;margin:6px 0 0;color:var(--muted)}
.legend span.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:5px;vertical-align:0}
.swatch{display:inline-block;width:22px;height:3px;border-radius:2px;vertical-align:middle}
table{border-collapse:collapse;width:100%;font-size:13px}
th{text-align:left;font-weight:600;color:var(--muted);font-size:12px;border-bottom:1px solid var(--line);
padding:5px 8px}
td{padding:4px 8px;border-bottom:1px solid #f0f2f5;vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.good{color:var(--ok);font-weight:600}
.bad{color:#b42318;font-weight:600}
.diff{border:1px solid var(--line);border-radius:8px;overflow-x:auto;padding:6px 0;background:#fff}
.diff .d{white-space:pre;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
font-size:12.5px;line-height:1.5;padding-right:12px;min-width:max-content}
.diff .ln{display:inline-block;width:5.5ch;padding-right:1ch;text-align:right;color:#98a2b3;user-select:none}
.diff .add{background:#e6f4ea}.diff .add .t{color:#0d5c1f}
.diff .del{background:#fdecea}.diff .del .t{color:#8a1c13}
.diff .hunk{background:#eef4ff;color:#3451b2}
.diff .file{color:var(--fg);font-weight:600}
.diff .meta{color:var(--muted)}
details{margin:6px 0}
summary{cursor:pointer;padding:4px 0}
.wtag{display:inline-block;font-weight:700;font-size:11.5px;padding:0 6px;border-radius:4px;background:#e8edff;
border:1px solid #4c6ef5;color:#2b3f9e}
.insts td.t{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px;
white-space:pre-wrap;overflow-wrap:anywhere}
.insts td.id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;color:var(--muted)}
.insts td.barcell{width:24%}
.bar{display:block;height:9px;border-radius:2px;background:#f08a3c;min-width:1px}
.band{fill:#4c6ef5;fill-opacity:.1;stroke:#4c6ef5;stroke-opacity:.7;stroke-width:1}
svg text.wlabel{fill:#2b3f9e;font-weight:700}
.track{fill:#fafbfc}
.notes li{margin:3px 0}
footer{margin-top:44px;color:var(--muted);font-size:12px}
)css";

// ---- the chart: best speedup over attempts ------------------------------------------------------------------------

/// Appends the chart section's body: an SVG of best speedup (cost_before / best cost) over attempt number, one step
/// line per lineage, each attempt a dot coloured by outcome; below it the lineage table and the outcome legend.
inline void chart(std::string& o, const ReportData& d) {
  if (d.lineages.empty()) {
    o += "<p class=\"empty\">No lineage ran: there is nothing to chart.</p>\n";
    return;
  }
  const bool has_base = std::isfinite(d.cost_before) && d.cost_before > 0;

  // Each lineage's step line in (attempt, speedup), and the extent of everything drawn.
  std::vector<std::vector<std::pair<double, double>>> lines(d.lineages.size());
  std::vector<bool> timed_best(d.lineages.size(), false);  // the line comes from at least one finite best cost
  double x_hi = 1, y_lo = 1, y_hi = 1;
  double dot_lo = std::numeric_limits<double>::infinity(), dot_hi = -dot_lo;
  std::size_t total_dots = 0, kept_accepted = 0;
  for (std::size_t li = 0; li < d.lineages.size(); ++li) {
    const ReportLineage& l = d.lineages[li];
    auto& pts = lines[li];
    for (const auto& [a, c] : l.best) {
      const double s = ratio(d.cost_before, c);
      if (!std::isfinite(s)) continue;
      timed_best[li] = true;
      if (!pts.empty()) pts.emplace_back(static_cast<double>(a), pts.back().second);  // the step's riser
      pts.emplace_back(static_cast<double>(a), s);
    }
    double last = l.attempts.empty() ? 0 : static_cast<double>(l.attempts.back().attempt);
    for (const auto& p : l.attempts) {
      last = std::max(last, static_cast<double>(p.attempt));
      ++total_dots;
      if (outcome_slot(p.outcome) == 0) ++kept_accepted;
      const double s = ratio(d.cost_before, p.cost);
      if (std::isfinite(s)) dot_lo = std::min(dot_lo, s), dot_hi = std::max(dot_hi, s);
    }
    if (pts.empty()) pts.emplace_back(0.0, 1.0);  // no finite best: the lineage never left K0's cost
    if (last > pts.back().first) pts.emplace_back(last, pts.back().second);
    if (pts.size() == 1) pts.emplace_back(pts[0].first + 1, pts[0].second);  // one point draws nothing: a short step
    for (const auto& [x, y] : pts) x_hi = std::max(x_hi, x), y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
  }

  // Axes: x from attempt 0; y around the lines, widened for the dots up to half the lowest and twice the highest line
  // value (a wilder candidate, say one timed at a hundredth of K0's cost, sits on the edge rather than squash the
  // lines flat), from a little under the lowest value (never below 0) to a little over the highest.
  if (dot_lo <= dot_hi) {
    y_lo = std::min(y_lo, std::max(dot_lo, y_lo / 2));
    y_hi = std::max(y_hi, std::min(dot_hi, y_hi * 2));
  }
  double span = y_hi - y_lo;
  if (span < 0.02) y_lo -= 0.05, y_hi += 0.05, span = y_hi - y_lo;
  const double y_step = nice_step(span * 1.1, 5);
  const double y0 = std::max(0.0, std::floor((y_lo - span * 0.05) / y_step) * y_step);
  const double y1 = std::ceil((y_hi + span * 0.05) / y_step) * y_step;
  const double x_step = std::max(1.0, std::round(nice_step(x_hi, 8)));
  const double x1 = x_hi;
  constexpr double W = 960, H = 362, ml = 64, mr = 18, mt = 14, ph = 270;
  constexpr double pw = W - ml - mr, lane = mt + ph + 16;
  const auto px = [&](double a) { return ml + std::clamp(a / x1, 0.0, 1.0) * pw; };
  const auto py = [&](double s) { return mt + std::clamp((y1 - s) / (y1 - y0), 0.0, 1.0) * ph; };

  o += "<svg class=\"chart\" viewBox=\"0 0 " + xy(W) + " " + xy(H) +
       "\" role=\"img\" aria-label=\"best speedup over K0 by attempt, one line per lineage\">\n";
  const int yd = decimals_for(y_step);
  for (const double t : ticks(y0, y1, y_step)) {
    const std::string y = xy(py(t));
    o += "<line class=\"grid\" x1=\"" + xy(ml) + "\" y1=\"" + y + "\" x2=\"" + xy(W - mr) + "\" y2=\"" + y + "\"/>";
    o += "<text x=\"" + xy(ml - 8) + "\" y=\"" + xy(py(t) + 4) + "\" text-anchor=\"end\">" + fixed(t, yd) +
         "x</text>\n";
  }
  for (const double t : ticks(0, x1, x_step)) {
    const std::string x = xy(px(t));
    o += "<line class=\"axis\" x1=\"" + x + "\" y1=\"" + xy(mt + ph) + "\" x2=\"" + x + "\" y2=\"" + xy(mt + ph + 5) +
         "\"/><text x=\"" + x + "\" y=\"" + xy(lane + 24) + "\" text-anchor=\"middle\">" +
         grouped(static_cast<std::uint64_t>(t)) + "</text>\n";
  }
  o += "<line class=\"axis\" x1=\"" + xy(ml) + "\" y1=\"" + xy(mt) + "\" x2=\"" + xy(ml) + "\" y2=\"" + xy(mt + ph) +
       "\"/><line class=\"axis\" x1=\"" + xy(ml) + "\" y1=\"" + xy(mt + ph) + "\" x2=\"" + xy(W - mr) + "\" y2=\"" +
       xy(mt + ph) + "\"/>\n";
  if (1 >= y0 && 1 <= y1)
    o += "<line class=\"base\" x1=\"" + xy(ml) + "\" y1=\"" + xy(py(1)) + "\" x2=\"" + xy(W - mr) + "\" y2=\"" +
         xy(py(1)) + "\"><title>K0 (1.00x)</title></line>\n";
  o += "<line class=\"lane\" x1=\"" + xy(ml) + "\" y1=\"" + xy(lane) + "\" x2=\"" + xy(W - mr) + "\" y2=\"" +
       xy(lane) + "\"/><text x=\"" + xy(ml - 8) + "\" y=\"" + xy(lane + 4) +
       "\" text-anchor=\"end\">not timed</text>\n";
  o += "<text class=\"title\" x=\"" + xy(ml + pw / 2) + "\" y=\"" + xy(H - 4) +
       "\" text-anchor=\"middle\">attempt</text><text class=\"title\" transform=\"translate(14 " + xy(mt + ph / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">best speedup over K0</text>\n";

  for (std::size_t li = 0; li < lines.size(); ++li) {
    const ReportLineage& l = d.lineages[li];
    o += "<polyline class=\"best\" stroke=\"" + std::string(lineage_colours[li % lineage_colours.size()]) +
         "\" points=\"";
    for (const auto& [x, y] : lines[li]) o += xy(px(x)) + "," + xy(py(y)) + " ";
    o.back() = '"';
    o += "><title>L" + std::to_string(l.index) + " " + esc(l.proposer) + (l.strategy.empty() ? "" : " / ") +
         esc(l.strategy) + ": best " +
         (timed_best[li] ? times(lines[li].back().second) : std::string("not timed")) + "</title></polyline>\n";
  }

  // Dots last, so that they sit on the lines. Past report_max_dots, accepted ones are all kept and the rest thinned.
  const std::size_t others = total_dots - kept_accepted;
  const std::size_t room = report_max_dots > kept_accepted ? report_max_dots - kept_accepted : 0;
  const std::size_t stride = others <= room ? 1 : room == 0 ? others + 1 : (others + room - 1) / room;
  std::size_t seen = 0, drawn = 0;
  for (const ReportLineage& l : d.lineages) {
    for (const ReportSeriesPoint& p : l.attempts) {
      const std::size_t slot = outcome_slot(p.outcome);
      if (slot != 0 && seen++ % stride != 0) continue;
      ++drawn;
      const double s = ratio(d.cost_before, p.cost);
      const double cy = std::isfinite(s) ? py(s) : lane;
      o += "<circle class=\"dot " + std::string(outcomes[slot].cls) + "\" cx=\"" +
           xy(px(static_cast<double>(p.attempt))) + "\" cy=\"" + xy(cy) + "\" r=\"" + (slot == 0 ? "4" : "2.8") +
           "\"><title>attempt " + std::to_string(p.attempt) + ", L" + std::to_string(l.index) + ": " +
           esc(p.outcome.empty() ? std::string_view("(no outcome)") : std::string_view(p.outcome));
      if (std::isfinite(p.cost)) o += ", " + value(p.cost) + (d.modeled ? " cycles" : " us");
      if (std::isfinite(s)) o += " (" + times(s) + ")";
      if (!p.summary.empty()) o += "\n" + esc(clip(p.summary, 200));
      o += "</title></circle>\n";
    }
  }
  o += "</svg>\n";
  if (!has_base)
    o += "<p class=\"caption\">K0's cost is not a positive number, so no speedup can be computed: every attempt is "
         "drawn as not timed and every lineage at 1.00x.</p>\n";
  if (drawn < total_dots)
    o += "<p class=\"caption\">Showing " + grouped(drawn) + " of " + grouped(total_dots) +
         " attempts as dots: every accepted one, and an even sample of the others.</p>\n";

  // Outcome legend with counts, then the lineages with their colours.
  std::array<std::size_t, outcomes.size()> count{};
  for (const ReportLineage& l : d.lineages)
    for (const ReportSeriesPoint& p : l.attempts) ++count[outcome_slot(p.outcome)];
  o += "<div class=\"legend\">";
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (i + 1 == outcomes.size() && count[i] == 0) continue;
    o += "<span><span class=\"dot " + std::string(outcomes[i].cls) + "\"></span>" + std::string(outcomes[i].label) +
         " " + grouped(count[i]) + "</span>";
  }
  o += "</div>\n<table class=\"lineages\"><thead><tr><th></th><th>lineage</th><th>proposer</th><th>strategy</th>"
       "<th class=\"num\">attempts</th><th class=\"num\">timed</th><th class=\"num\">accepted</th>"
       "<th class=\"num\">best</th></tr></thead><tbody>\n";
  for (std::size_t li = 0; li < d.lineages.size(); ++li) {
    const ReportLineage& l = d.lineages[li];
    std::size_t timed = 0, acc = 0;
    for (const ReportSeriesPoint& p : l.attempts) {
      timed += std::isfinite(p.cost) ? 1 : 0;
      acc += outcome_slot(p.outcome) == 0 ? 1 : 0;
    }
    const double best = timed_best[li] ? lines[li].back().second : std::numeric_limits<double>::quiet_NaN();
    o += "<tr><td><span class=\"swatch\" style=\"background:" +
         std::string(lineage_colours[li % lineage_colours.size()]) + "\"></span></td><td>L" + std::to_string(l.index) +
         "</td><td>" + esc(l.proposer) + "</td><td>" + esc(l.strategy) + "</td><td class=\"num\">" +
         grouped(l.attempts.size()) + "</td><td class=\"num\">" + grouped(timed) + "</td><td class=\"num\">" +
         grouped(acc) + "</td><td class=\"num" + (best > 1 ? " good" : "") + "\">" + times(best) + "</td></tr>\n";
  }
  o += "</tbody></table>\n";
}

// ---- accepted steps and the diff ----------------------------------------------------------------------------------

inline void accepted_table(std::string& o, const ReportData& d) {
  if (d.accepted_steps.empty()) {
    o += d.accepted == 0 ? "<p class=\"empty\">No accepted edits: K1 is K0.</p>\n"
                         : "<p class=\"empty\">The run accepted " + grouped(d.accepted) +
                               " edits, but their steps were not recorded.</p>\n";
    return;
  }
  std::unordered_map<std::uint32_t, const ReportLineage*> by_index;
  for (const ReportLineage& l : d.lineages) by_index.emplace(l.index, &l);
  const char* unit = d.modeled ? "cycles" : "us";
  o += "<table class=\"steps\"><thead><tr><th class=\"num\">#</th><th class=\"num\">attempt</th><th>lineage</th>"
       "<th>edit</th><th class=\"num\">before (" + std::string(unit) + ")</th><th class=\"num\">after (" + unit +
       ")</th><th class=\"num\">step</th><th class=\"num\">total</th></tr></thead><tbody>\n";
  std::size_t n = 0;
  for (const ReportAccepted& a : d.accepted_steps) {
    if (++n > 2000) {
      o += "<tr><td colspan=\"8\" class=\"muted\">... " + grouped(d.accepted_steps.size() - 2000) +
           " more accepted steps not listed</td></tr>\n";
      break;
    }
    const auto it = by_index.find(a.lineage);
    o += "<tr><td class=\"num\">" + std::to_string(n) + "</td><td class=\"num\">" + grouped(a.attempt) +
         "</td><td>L" + std::to_string(a.lineage) +
         (it != by_index.end() && !it->second->proposer.empty() ? " <span class=\"muted\">" +
                                                                      esc(it->second->proposer) + "</span>"
                                                                : std::string()) +
         "</td><td>" + esc(a.summary) + "</td><td class=\"num\">" + value(a.cost_before) + "</td><td class=\"num\">" +
         value(a.cost_after) + "</td><td class=\"num\">" + times(ratio(a.cost_before, a.cost_after)) +
         "</td><td class=\"num good\">" + times(ratio(d.cost_before, a.cost_after)) + "</td></tr>\n";
  }
  o += "</tbody></table>\n";
}

/// Parses "@@ -a[,b] +c[,d] @@": the first line numbers and the line counts of both sides. False when malformed.
[[nodiscard]] inline bool parse_hunk(std::string_view h, long& a, long& b, long& c, long& e) {
  std::size_t i = 2;
  const auto skip = [&] {
    while (i < h.size() && h[i] == ' ') ++i;
  };
  const auto number = [&](long& v) {
    if (i >= h.size() || h[i] < '0' || h[i] > '9') return false;
    v = 0;
    while (i < h.size() && h[i] >= '0' && h[i] <= '9' && v < 1'000'000'000) v = v * 10 + (h[i++] - '0');
    return true;
  };
  const auto side = [&](char sign, long& first, long& count) {
    skip();
    if (i >= h.size() || h[i] != sign) return false;
    ++i;
    if (!number(first)) return false;
    count = 1;
    if (i < h.size() && h[i] == ',') {
      ++i;
      if (!number(count)) return false;
    }
    return true;
  };
  return side('-', a, b) && side('+', c, e);
}

/// Appends the diff, one block line per diff line with its class (file, hunk, add, del, ctx, meta) and the old and
/// new line numbers that the hunk headers give.
inline void diff(std::string& o, std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    o += "<p class=\"empty\">No accepted edits: the diff is empty.</p>\n";
    return;
  }
  struct Line {
    std::string_view text;
    const char* cls;
    long old_no, new_no;
  };
  std::vector<Line> lines;
  std::size_t adds = 0, dels = 0, total = 0;
  long old_left = 0, new_left = 0, old_no = 0, new_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    ++total;
    Line out{l, "meta", 0, 0};
    bool body = false;
    // Inside a hunk (by its counts) a line is a body line even when it looks like a header ("--- x" is a deleted
    // "-- x"); outside, or when the header gave no counts, the first characters decide.
    if ((old_left > 0 || new_left > 0) && !l.starts_with("@@")) {
      const char c = l.empty() ? ' ' : l[0];
      body = true;
      if (c == '+' && new_left > 0) {
        out = {l, "add", 0, new_no++};
        --new_left;
      } else if (c == '-' && old_left > 0) {
        out = {l, "del", old_no++, 0};
        --old_left;
      } else if (c == ' ' && old_left > 0 && new_left > 0) {
        out = {l, "ctx", old_no++, new_no++};
        --old_left, --new_left;
      } else if (c == '\\') {
        out = {l, "meta", 0, 0};
      } else {
        old_left = new_left = 0;
        body = false;
      }
    }
    if (!body) {
      long a = 0, b = 0, c = 0, e = 0;
      if (l.starts_with("@@")) {
        out.cls = "hunk";
        if (parse_hunk(l, a, b, c, e)) old_no = a, old_left = b, new_no = c, new_left = e;
      } else if (l.starts_with("--- ") || l.starts_with("+++ ")) {
        out.cls = "file";
      } else if (l.starts_with("+")) {
        out.cls = "add";
      } else if (l.starts_with("-")) {
        out.cls = "del";
      } else if (l.starts_with(" ")) {
        out.cls = "ctx";
      }
    }
    adds += std::string_view(out.cls) == "add" ? 1 : 0;
    dels += std::string_view(out.cls) == "del" ? 1 : 0;
    if (lines.size() < report_max_diff_lines) lines.push_back(out);
  }
  o += "<details open><summary><span class=\"good\">+" + grouped(adds) + "</span> <span class=\"bad\">-" +
       grouped(dels) + "</span> lines</summary>\n<div class=\"diff\">\n";
  for (const Line& l : lines) {
    o += "<div class=\"d ";
    o += l.cls;
    o += "\"><span class=\"ln\">";
    if (l.old_no > 0) o += std::to_string(l.old_no);
    o += "</span><span class=\"ln\">";
    if (l.new_no > 0) o += std::to_string(l.new_no);
    o += "</span><span class=\"t\">";
    esc_to(o, clip(l.text, 2000));
    o += "</span></div>\n";
  }
  o += "</div></details>\n";
  if (lines.size() < total)
    o += "<p class=\"caption\">Showing the first " + grouped(lines.size()) + " of " + grouped(total) +
         " diff lines.</p>\n";
}

// ---- hot windows --------------------------------------------------------------------------------------------------

/// A profile in at most report_max_bars contiguous buckets of instructions: bucket b starts at first[b].
struct Buckets {
  std::vector<std::size_t> first;
  std::vector<double> sum;
  double total = 0;
  [[nodiscard]] std::size_t of(std::size_t inst) const {
    return static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), inst) - first.begin()) - 1;
  }
  [[nodiscard]] std::size_t end(std::size_t b, std::size_t n) const { return b + 1 < first.size() ? first[b + 1] : n; }
};

/// Cycles that count: a negative or non-finite figure counts as none.
[[nodiscard]] inline double cycles_of(const ReportHotInst& i) {
  return std::isfinite(i.cycles) && i.cycles > 0 ? i.cycles : 0;
}

[[nodiscard]] inline Buckets bucketize(const std::vector<ReportHotInst>& insts) {
  Buckets b;
  const std::size_t n = insts.size(), count = std::min(n, report_max_bars);
  for (std::size_t k = 0; k < count; ++k) b.first.push_back(static_cast<std::size_t>(
      static_cast<unsigned long long>(k) * n / count));
  b.sum.assign(count, 0);
  for (std::size_t k = 0; k < count; ++k)
    for (std::size_t i = b.first[k]; i < b.end(k, n); ++i) b.sum[k] += cycles_of(insts[i]);
  for (const double s : b.sum) b.total += s;
  return b;
}

/// Where a window lies in `insts` (indexes of its first and last instruction), when both ids are there.
struct Span {
  bool found = false;
  std::size_t lo = 0, hi = 0;
};

using IdIndex = std::unordered_map<std::string_view, std::size_t>;

[[nodiscard]] inline IdIndex index_ids(const std::vector<ReportHotInst>& insts) {
  IdIndex at;
  at.reserve(insts.size());
  for (std::size_t i = 0; i < insts.size(); ++i) at.emplace(insts[i].id, i);  // the first of a repeated id wins
  return at;
}

[[nodiscard]] inline Span locate(const IdIndex& at, const ReportHotWindow& w) {
  const auto a = at.find(w.first), b = at.find(w.last);
  if (a == at.end() || b == at.end()) return {};
  return {true, std::min(a->second, b->second), std::max(a->second, b->second)};
}

/// Appends a heat strip: one bar per bucket, height and colour by the bucket's cycles over `scale` (shared by K0 and
/// K1 so that their heights compare), hot windows as labelled bands behind the bars.
inline void heat_strip(std::string& o, const std::vector<ReportHotInst>& insts, const Buckets& b,
                       const std::vector<ReportHotWindow>& wins, const IdIndex& at, double scale,
                       std::string_view who) {
  constexpr double W = 960, ml = 12, mr = 12, top = 22, bh = 110, H = top + bh + 30, pw = W - ml - mr;
  const std::size_t n = insts.size(), count = b.sum.size();
  const double bw = pw / static_cast<double>(count);
  o += "<svg class=\"heat\" viewBox=\"0 0 " + xy(W) + " " + xy(H) + "\" role=\"img\" aria-label=\"" + esc(who) +
       ": modeled wave-cycles over the kernel's instructions in address order\">\n";
  o += "<rect class=\"track\" x=\"" + xy(ml) + "\" y=\"" + xy(top) + "\" width=\"" + xy(pw) + "\" height=\"" + xy(bh) +
       "\"/>\n";
  for (std::size_t k = 0; k < wins.size() && k < report_max_windows; ++k) {
    const Span s = locate(at, wins[k]);
    if (!s.found) continue;
    const double x0 = ml + static_cast<double>(b.of(s.lo)) * bw, x1 = ml + static_cast<double>(b.of(s.hi) + 1) * bw;
    const double w = std::max(2.0, x1 - x0);
    o += "<rect class=\"band\" x=\"" + xy(x0) + "\" y=\"" + xy(top - 4) + "\" width=\"" + xy(w) + "\" height=\"" +
         xy(bh + 4) + "\"><title>W" + std::to_string(k + 1) + ": " + esc(wins[k].first) + " - " + esc(wins[k].last) +
         ", " + percent(wins[k].share) + " of cycles</title></rect><text x=\"" + xy(x0 + w / 2) + "\" y=\"" +
         xy(top - 8) + "\" text-anchor=\"middle\" class=\"wlabel\">W" + std::to_string(k + 1) + "</text>\n";
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (!(b.sum[k] > 0)) continue;
    const double t = scale > 0 ? std::min(1.0, b.sum[k] / scale) : 0;
    const double h = std::max(1.0, t * bh);
    const std::size_t lo = b.first[k], hi = b.end(k, n) - 1;
    o += "<rect class=\"bar\" x=\"" + xy(ml + static_cast<double>(k) * bw) + "\" y=\"" + xy(top + bh - h) +
         "\" width=\"" + fixed(bw < 3 ? bw : bw - 1, 2) + "\" height=\"" + xy(h) + "\" fill=\"" + heat_colour(t) +
         "\"><title>";
    if (lo == hi)
      o += esc(insts[lo].id) + "  " + esc(clip(insts[lo].text, 80));
    else
      o += esc(insts[lo].id) + " - " + esc(insts[hi].id) + " (" + grouped(hi - lo + 1) + " instructions)";
    o += ": " + value(b.sum[k]) + " cycles, " + percent(b.total > 0 ? b.sum[k] / b.total : 0) + "</title></rect>\n";
  }
  o += "<line class=\"axis\" x1=\"" + xy(ml) + "\" y1=\"" + xy(top + bh) + "\" x2=\"" + xy(W - mr) + "\" y2=\"" +
       xy(top + bh) + "\"/>\n";
  if (scale > 0)
    o += "<text x=\"" + xy(W - mr) + "\" y=\"" + xy(top - 8) + "\" text-anchor=\"end\">full height: " + value(scale) +
         " wave-cycles per bar</text>\n";
  const std::size_t marks = std::min<std::size_t>(n, 5);
  for (std::size_t m = 0; m < marks; ++m) {
    const std::size_t i = marks == 1 ? 0 : m * (n - 1) / (marks - 1);
    const double x = ml + (static_cast<double>(b.of(i)) + 0.5) * bw;
    const char* anchor = m == 0 ? "start" : m + 1 == marks ? "end" : "middle";
    o += "<text x=\"" + xy(m == 0 ? ml : m + 1 == marks ? W - mr : x) + "\" y=\"" + xy(top + bh + 16) +
         "\" text-anchor=\"" + anchor + "\">" + esc(clip(insts[i].id, 24)) + "</text>\n";
  }
  o += "</svg>\n";
}

/// Appends a window's instruction table (at most report_max_window_rows rows).
inline void window_table(std::string& o, const std::vector<ReportHotInst>& insts, const Span& s) {
  double top = 0;
  for (std::size_t i = s.lo; i <= s.hi; ++i) top = std::max(top, cycles_of(insts[i]));
  o += "<table class=\"insts\"><thead><tr><th>id</th><th>instruction</th><th class=\"num\">cycles</th><th></th>"
       "</tr></thead><tbody>\n";
  const std::size_t rows = s.hi - s.lo + 1, shown = std::min(rows, report_max_window_rows);
  for (std::size_t i = s.lo; i < s.lo + shown; ++i) {
    const double c = cycles_of(insts[i]);
    o += "<tr><td class=\"id\">" + esc(insts[i].id) + "</td><td class=\"t\">" + esc(clip(insts[i].text, 400)) +
         "</td><td class=\"num\">" + value(c) + "</td><td class=\"barcell\">";
    if (c > 0 && top > 0)
      o += "<span class=\"bar\" style=\"width:" + fixed(100 * c / top, 1) + "%;background:" + heat_colour(c / top) +
           "\"></span>";
    o += "</td></tr>\n";
  }
  if (shown < rows)
    o += "<tr><td colspan=\"4\" class=\"muted\">... " + grouped(rows - shown) + " more instructions, to " +
         esc(insts[s.hi].id) + "</td></tr>\n";
  o += "</tbody></table>\n";
}

/// Appends one profile (K0's or K1's): its summary line, its heat strip and its windows' tables.
inline void profile(std::string& o, std::string_view who, const std::vector<ReportHotInst>& insts, const Buckets& b,
                    const std::vector<ReportHotWindow>& wins, double scale) {
  o += "<h3>" + esc(who) + "</h3>\n";
  if (insts.empty()) {
    o += "<p class=\"empty\">No profile.</p>\n";
    return;
  }
  std::size_t executed = 0;
  for (const ReportHotInst& i : insts) executed += cycles_of(i) > 0 ? 1 : 0;
  o += "<p class=\"caption\">" + grouped(insts.size()) + " instructions, " + grouped(executed) + " with cycles; " +
       value(b.total) + " modeled wave-cycles attributed";
  if (b.sum.size() < insts.size())
    o += "; drawn as " + grouped(b.sum.size()) + " bars of about " + grouped(insts.size() / b.sum.size()) +
         " instructions";
  o += ".</p>\n";
  const IdIndex at = index_ids(insts);
  heat_strip(o, insts, b, wins, at, scale, who);
  if (wins.empty()) {
    o += "<p class=\"empty\">No hot windows.</p>\n";
    return;
  }
  for (std::size_t k = 0; k < wins.size() && k < report_max_windows; ++k) {
    const ReportHotWindow& w = wins[k];
    const Span s = locate(at, w);
    o += std::string("<details") + (k < 3 ? " open" : "") + "><summary><span class=\"wtag\">W" +
         std::to_string(k + 1) + "</span> <code>" + esc(w.first) + "</code> &ndash; <code>" + esc(w.last) +
         "</code> &middot; <b>" + percent(w.share) + "</b> of cycles";
    if (s.found) {
      double c = 0;
      for (std::size_t i = s.lo; i <= s.hi; ++i) c += cycles_of(insts[i]);
      o += " &middot; " + grouped(s.hi - s.lo + 1) + " instructions &middot; " + value(c) + " cycles";
    } else {
      o += " &middot; <span class=\"muted\">not in the instruction list</span>";
    }
    o += "</summary>\n";
    if (s.found) window_table(o, insts, s);
    o += "</details>\n";
  }
  if (wins.size() > report_max_windows)
    o += "<p class=\"caption\">" + grouped(wins.size() - report_max_windows) + " more windows not listed.</p>\n";
}

inline void fact(std::string& o, std::string_view name, const std::string& html_value) {
  o += "<div><dt>";
  o += name;
  o += "</dt><dd>" + html_value + "</dd></div>";
}

}  // namespace detail::report

[[nodiscard]] ASMEVO_OUTLINE std::string render_report(const ReportData& d) {
  namespace r = detail::report;
  const std::string unit = d.modeled ? "modeled cycles" : "us";
  std::string o;
  o.reserve(256 * 1024);
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>asmevo: " +
       r::esc(d.kernel.empty() ? std::string_view("kernel") : std::string_view(d.kernel)) + " " + r::times(d.speedup) +
       "</title>\n<style>";
  o += r::css;
  o += "</style>\n</head>\n<body>\n<main>\n";

  // Header: what ran, the verdict, the facts.
  o += "<h1>asmevo optimize &middot; " +
       (d.kernel.empty() ? std::string("kernel unknown") : "<code>" + r::esc(d.kernel) + "</code>") +
       "</h1>\n<div class=\"sub\">" +
       (d.target.empty() ? std::string("target unknown") : "target " + r::esc(d.target)) + " &middot; " +
       (d.executor.empty() ? std::string("executor unknown") : r::esc(d.executor) + " executor") + " (" +
       (d.modeled ? "modeled cycles" : "measured time, us") + ")</div>\n";
  o += std::string("<section class=\"verdict") + (d.verified ? " ok" : "") + "\">\n<div class=\"big\">" +
       r::times(d.speedup) + "</div>\n<div><div><span class=\"badge\">" + (d.verified ? "verified" : "not verified") +
       "</span>";
  if (d.accepted == 0 && d.accepted_steps.empty()) o += " <span class=\"muted\">no accepted edits</span>";
  o += "</div>\n<div class=\"cost\">" + r::value(d.cost_before) + " &rarr; " + r::value(d.cost_after) + " " + unit +
       "</div></div>\n</section>\n<dl class=\"facts\">";
  const auto code_or_dash = [&](const std::string& s) {
    return s.empty() ? std::string("&ndash;") : "<code>" + r::esc(s) + "</code>";
  };
  r::fact(o, "K0", code_or_dash(d.k0_path));
  r::fact(o, "K1", code_or_dash(d.k1_path));
  r::fact(o, "attempts", r::grouped(d.attempts) + " in " + r::grouped(d.lineages.size()) +
                             (d.lineages.size() == 1 ? " lineage" : " lineages"));
  r::fact(o, "accepted", r::grouped(d.accepted));
  r::fact(o, "tokens", r::grouped(d.tokens));
  r::fact(o, "wall time", r::duration(d.seconds));
  r::fact(o, "seed", std::to_string(d.seed));
  // Against the speed of light: the model's lower bound for the same CU share, and how far each kernel is from it.
  auto against = [&](double modeled, double bound, const std::string& kind) {
    return r::value(modeled) + " / " + r::value(bound) + " cycles = " + r::times(modeled / bound) + " the bound (" +
           r::esc(kind) + ")";
  };
  if (d.bound_before > 0) r::fact(o, "K0 vs bound", against(d.profiled_before, d.bound_before, d.bound_kind_before));
  if (d.bound_after > 0) r::fact(o, "K1 vs bound", against(d.profiled_after, d.bound_after, d.bound_kind_after));
  o += "</dl>\n<nav><a href=\"#progress\">progress</a><a href=\"#accepted\">accepted edits</a><a href=\"#diff\">diff"
       "</a><a href=\"#hot\">hot windows</a><a href=\"#notes\">notes</a></nav>\n";

  o += "<section id=\"progress\"><h2>Best speedup over attempts</h2>\n";
  r::chart(o, d);
  o += "</section>\n<section id=\"accepted\"><h2>Accepted edits</h2>\n";
  r::accepted_table(o, d);
  o += "</section>\n<section id=\"diff\"><h2>Diff K0 &rarr; K1</h2>\n";
  r::diff(o, d.diff);
  o += "</section>\n<section id=\"hot\"><h2>Hot windows</h2>\n<p class=\"caption\">Bars follow the kernel's "
       "instructions in address order; height and colour are modeled wave-cycles, on one scale for K0 and K1. "
       "Hot windows are the shaded bands.</p>\n";
  const r::Buckets b0 = r::bucketize(d.insts_before), b1 = r::bucketize(d.insts_after);
  double scale = 0;
  for (const double s : b0.sum) scale = std::max(scale, s);
  for (const double s : b1.sum) scale = std::max(scale, s);
  r::profile(o, "K0 (before)", d.insts_before, b0, d.hot_before, scale);
  r::profile(o, "K1 (after)", d.insts_after, b1, d.hot_after, scale);
  o += "</section>\n<section id=\"notes\"><h2>Notes</h2>\n";
  if (d.notes.empty()) {
    o += "<p class=\"empty\">None.</p>\n";
  } else {
    o += "<ul class=\"notes\">\n";
    for (const std::string& n : d.notes) o += "<li>" + r::esc(n) + "</li>\n";
    o += "</ul>\n";
  }
  o += "</section>\n<footer>Written by asmevo optimize --report. Self-contained: no script, nothing loaded from the "
       "network.</footer>\n</main>\n</body>\n</html>\n";
  return o;
}

}  // namespace asmevo::agent
