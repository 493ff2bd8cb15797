// Tests of the `asmevo optimize --report` page (agent/report.hpp), checking what a person opening it would: the
// verdict, one best-speedup line per lineage, the diff's colouring, the heat strips of a 50,000-instruction kernel,
// NaN costs, text that looks like HTML, and that every page is a well-formed document.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asmevo/agent/report.hpp"

namespace asmevo::agent {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::size_t count(std::string_view s, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t i = s.find(what); i != std::string_view::npos; i = s.find(what, i + what.size())) ++n;
  return n;
}

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

// Every <svg ...>...</svg> of the page, in order.
std::vector<std::string_view> svgs(std::string_view html) {
  std::vector<std::string_view> out;
  for (std::size_t i = html.find("<svg"); i != std::string_view::npos; i = html.find("<svg", i + 1)) {
    const std::size_t e = html.find("</svg>", i);
    if (e == std::string_view::npos) break;
    out.push_back(html.substr(i, e + 6 - i));
  }
  return out;
}

// The <section id="..."> of the page, up to its </section> (sections do not nest).
std::string_view section(std::string_view html, std::string_view id) {
  const std::size_t i = html.find("<section id=\"" + std::string(id) + "\"");
  if (i == std::string_view::npos) return {};
  return html.substr(i, html.find("</section>", i) - i);
}

// The page is a document a browser need not repair: one <html>, ends with </html>, every element closed in order
// (void elements and self-closed SVG elements aside), no raw '<' in text and every '&' starting an entity.
::testing::AssertionResult well_formed(std::string_view html) {
  if (count(html, "<html") != 1) return ::testing::AssertionFailure() << count(html, "<html") << " <html> elements";
  if (!html.ends_with("</html>\n")) return ::testing::AssertionFailure() << "does not end with </html>";
  if (count(html, "<svg") != count(html, "</svg>")) return ::testing::AssertionFailure() << "unbalanced <svg>";
  static const std::vector<std::string_view> void_elements{"meta", "br", "hr", "img", "input", "link", "wbr"};
  std::vector<std::string> open;
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '&') {
      std::size_t j = i + 1;
      if (j < html.size() && html[j] == '#') ++j;
      while (j < html.size() && std::isalnum(static_cast<unsigned char>(html[j]))) ++j;
      if (j == i + 1 || j >= html.size() || html[j] != ';')
        return ::testing::AssertionFailure() << "bare '&' at " << i << ": " << html.substr(i, 20);
      continue;
    }
    if (html[i] != '<') continue;
    if (html.substr(i, 2) == "<!") {
      i = html.find('>', i);
      continue;
    }
    const std::size_t end = html.find('>', i);
    if (end == std::string_view::npos) return ::testing::AssertionFailure() << "unterminated tag at " << i;
    std::string_view tag = html.substr(i + 1, end - i - 1);
    const bool closing = tag.starts_with('/');
    if (closing) tag.remove_prefix(1);
    std::size_t n = 0;
    while (n < tag.size() && std::isalnum(static_cast<unsigned char>(tag[n]))) ++n;
    const std::string name = lower(tag.substr(0, n));
    if (name.empty()) return ::testing::AssertionFailure() << "raw '<' in text at " << i << ": " << html.substr(i, 30);
    if (closing) {
      if (open.empty() || open.back() != name)
        return ::testing::AssertionFailure() << "</" << name << "> at " << i << " closes <"
                                             << (open.empty() ? "nothing" : open.back()) << ">";
      open.pop_back();
    } else if (tag.ends_with('/') ||
               std::find(void_elements.begin(), void_elements.end(), name) != void_elements.end()) {
      // nothing to close
    } else if (name == "style" || name == "script") {
      const std::size_t close = html.find("</" + name + ">", end);
      if (close == std::string_view::npos) return ::testing::AssertionFailure() << "unclosed <" << name << ">";
      i = close + name.size() + 2;
      continue;
    } else {
      open.push_back(name);
    }
    i = end;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  return ::testing::AssertionSuccess();
}

// The points of each <polyline> in `svg`, as (x, y) pairs.
std::vector<std::vector<std::pair<double, double>>> polylines(std::string_view svg) {
  std::vector<std::vector<std::pair<double, double>>> out;
  for (std::size_t i = svg.find("<polyline"); i != std::string_view::npos; i = svg.find("<polyline", i + 1)) {
    const std::size_t p = svg.find("points=\"", i) + 8;
    const std::string pts(svg.substr(p, svg.find('"', p) - p));
    auto& line = out.emplace_back();
    const char* s = pts.c_str();
    char* e = nullptr;
    for (;;) {
      const double x = std::strtod(s, &e);
      if (e == s || *e != ',') break;
      const double y = std::strtod(e + 1, &e);
      line.emplace_back(x, y);
      s = e;
    }
  }
  return out;
}

std::string diff_text() {
  return "--- K0 gemm.s\n"
         "+++ K1 gemm.s\n"
         "@@ -10,4 +10,3 @@ gemm:\n"
         " \tv_add_f32 v0, v1, v2 ; i10\n"
         "-\ts_waitcnt vmcnt(0) ; i11\n"
         "-\ts_nop 3 ; i12\n"
         "+\ts_waitcnt vmcnt(1) ; i11\n"
         " \tv_mul_f32 v3, v0, v0 ; i13\n";
}

std::vector<ReportHotInst> kernel(std::size_t n, std::size_t hot_lo, std::size_t hot_hi) {
  std::vector<ReportHotInst> insts;
  insts.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    insts.push_back({"i" + std::to_string(i), "v_fma_f32 v" + std::to_string(i % 64) + ", v1, v2, v3",
                     i >= hot_lo && i <= hot_hi ? 900.0 : static_cast<double>(i % 7)});
  return insts;
}

// A run of three lineages on a small kernel: 10,000 -> 8,000 modeled cycles.
ReportData sample() {
  ReportData d;
  d.kernel = "gemm<float, 4>";
  d.target = "gfx942";
  d.k0_path = "/tmp/k0.co";
  d.k1_path = "/tmp/k1.co";
  d.executor = "emu";
  d.cost_before = 10000;
  d.cost_after = 8000;
  d.speedup = 1.25;
  d.verified = true;
  d.attempts = 14;
  d.accepted = 3;
  d.tokens = 123456;
  d.seconds = 187;
  d.seed = 42;
  ReportLineage l0{0, "builtin", "waitcnt", {}, {{0, 10000}, {4, 9000}, {9, 8000}}};
  l0.attempts = {{1, 10100, "slower"},  {2, nan, "invalid"}, {4, 9000, "accepted", "relax s_waitcnt at i11"},
                 {5, 9400, "slower"},   {7, nan, "failed"},  {9, 8000, "accepted", "drop s_nop at i12"}};
  ReportLineage l1{1, "llm:qwen", "schedule", {}, {{0, 10000}, {8, 9500}}};
  l1.attempts = {{3, nan, "no_proposal"}, {6, nan, "not_equivalent"}, {8, 9500, "accepted"}, {10, 9900, "slower"}};
  ReportLineage l2{2, "builtin", "nop", {}, {{0, 10000}}};
  l2.attempts = {{11, 10000, "slower"}, {12, nan, "invalid"}, {13, 10500, "slower"}, {14, nan, "no_proposal"}};
  d.lineages = {l0, l1, l2};
  d.accepted_steps = {{4, 0, "relax s_waitcnt at i11", 10000, 9000},
                      {8, 1, "move v_mul_f32 before its load", 9000, 8600},
                      {9, 0, "drop s_nop at i12", 8600, 8000}};
  d.diff = diff_text();
  d.insts_before = kernel(40, 10, 14);
  d.hot_before = {{"i10", "i14", 0.9}};
  d.insts_after = kernel(39, 10, 12);
  d.hot_after = {{"i10", "i12", 0.85}};
  d.notes = {"verified by the emulator on 3 inputs", "LLM lineage stopped after 4 attempts"};
  return d;
}

TEST(Report, HeaderGivesTheVerdictSpeedupAndCosts) {
  const std::string html = render_report(sample());
  EXPECT_TRUE(well_formed(html));
  EXPECT_NE(html.find("<div class=\"big\">1.25x</div>"), std::string::npos);
  EXPECT_NE(html.find(">verified<"), std::string::npos);
  EXPECT_NE(html.find("10,000 &rarr; 8,000 modeled cycles"), std::string::npos);
  EXPECT_NE(html.find("gfx942"), std::string::npos);
  EXPECT_NE(html.find("123,456"), std::string::npos);  // tokens
  EXPECT_NE(html.find("3m 07s"), std::string::npos);   // wall time

  ReportData hip = sample();
  hip.executor = "hip";
  hip.modeled = false;
  hip.verified = false;
  hip.cost_before = 12.5;
  hip.cost_after = 10;
  const std::string h = render_report(hip);
  EXPECT_TRUE(well_formed(h));
  EXPECT_NE(h.find("12.5 &rarr; 10 us"), std::string::npos);
  EXPECT_NE(h.find(">not verified<"), std::string::npos);
  EXPECT_EQ(h.find("modeled cycles</div>"), std::string::npos);
}

TEST(Report, EverythingFromTheRunIsEscaped) {
  ReportData d = sample();
  d.kernel = "k<\"'&>";
  d.insts_before[11].text = "v_mov_b32 v0, 0 <script>alert(\"x&y\")</script>";
  d.lineages[1].proposer = "llm:<evil>";
  d.lineages[0].attempts[2].summary = "<b>bold</b> & 'quoted'";
  d.accepted_steps[0].summary = "<i onclick=x>";
  d.notes.push_back("<img src=x onerror=alert(1)>");
  d.diff += "+\t<script>diff</script>\n";
  d.k0_path = "/tmp/a\"b<c>.co";
  const std::string html = render_report(d);
  EXPECT_TRUE(well_formed(html));
  EXPECT_EQ(lower(html).find("<script"), std::string::npos);  // the page needs no script, and none comes in
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<evil>"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_EQ(html.find("<i onclick"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("k&lt;&quot;&#39;&amp;&gt;"), std::string::npos);
  EXPECT_NE(html.find("llm:&lt;evil&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

TEST(Report, ChartHasOneBestLinePerLineageAndOneDotPerAttempt) {
  const ReportData d = sample();
  const std::string html = render_report(d);
  const std::string_view progress = section(html, "progress");
  const auto charts = svgs(progress);
  ASSERT_EQ(charts.size(), 1u);
  const std::string_view chart = charts[0];
  EXPECT_EQ(count(chart, "<polyline"), d.lineages.size());
  std::size_t attempts = 0, accepted = 0;
  for (const ReportLineage& l : d.lineages) {
    attempts += l.attempts.size();
    for (const ReportSeriesPoint& p : l.attempts) accepted += p.outcome == "accepted" ? 1 : 0;
  }
  EXPECT_EQ(count(chart, "<circle"), attempts);
  EXPECT_EQ(count(chart, "class=\"dot o-acc\""), accepted);
  EXPECT_EQ(count(chart, "class=\"dot o-neq\""), 1u);
  EXPECT_NE(chart.find(">attempt</text>"), std::string::npos);             // axis titles
  EXPECT_NE(chart.find(">best speedup over K0</text>"), std::string::npos);
  bool k0_tick = false;  // a y tick at K0's speedup, however many decimals the tick step needs
  for (const std::string_view label : {">1x</text>", ">1.0x</text>", ">1.00x</text>"})
    k0_tick = k0_tick || chart.find(label) != std::string_view::npos;
  EXPECT_TRUE(k0_tick);
  // The lineage table gives each lineage's best: L0 reached 10,000 / 8,000.
  EXPECT_NE(progress.find(">1.25x</td>"), std::string::npos);
  EXPECT_NE(progress.find(">1.05x</td>"), std::string::npos);  // L1: 10,000 / 9,500

  // A best line never loses speedup: x never decreases and y (downwards in SVG) never increases; each covers its
  // lineage's attempts, so L0's line is the one that rises highest (smallest y).
  const auto lines = polylines(chart);
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& line : lines) {
    ASSERT_GE(line.size(), 2u);
    for (std::size_t i = 1; i < line.size(); ++i) {
      EXPECT_GE(line[i].first, line[i - 1].first);
      EXPECT_LE(line[i].second, line[i - 1].second);
    }
  }
  EXPECT_LT(lines[0].back().second, lines[1].back().second);
  EXPECT_LT(lines[1].back().second, lines[2].back().second);
  EXPECT_EQ(lines[2].front().second, lines[2].back().second);  // L2 never improved: flat at 1.00x
}

TEST(Report, DiffLinesKeepTheirClassesAndLineNumbers) {
  const std::string html = render_report(sample());
  const std::string_view diff = section(html, "diff");
  EXPECT_NE(diff.find("<div class=\"d file\"><span class=\"ln\"></span><span class=\"ln\"></span>"
                      "<span class=\"t\">--- K0 gemm.s</span>"),
            std::string::npos);
  EXPECT_NE(diff.find("<div class=\"d hunk\">"), std::string::npos);
  EXPECT_NE(diff.find("<div class=\"d ctx\"><span class=\"ln\">10</span><span class=\"ln\">10</span>"
                      "<span class=\"t\"> \tv_add_f32 v0, v1, v2 ; i10</span>"),
            std::string::npos);
  EXPECT_NE(diff.find("<div class=\"d del\"><span class=\"ln\">12</span><span class=\"ln\"></span>"
                      "<span class=\"t\">-\ts_nop 3 ; i12</span>"),
            std::string::npos);
  EXPECT_NE(diff.find("<div class=\"d add\"><span class=\"ln\"></span><span class=\"ln\">11</span>"
                      "<span class=\"t\">+\ts_waitcnt vmcnt(1) ; i11</span>"),
            std::string::npos);
  EXPECT_NE(diff.find("<div class=\"d ctx\"><span class=\"ln\">13</span><span class=\"ln\">12</span>"),
            std::string::npos);
  EXPECT_EQ(count(diff, "class=\"d add\""), 1u);
  EXPECT_EQ(count(diff, "class=\"d del\""), 2u);

  // Inside a hunk, a deleted line that looks like a file header ("-" + "-- x") is still a deletion.
  ReportData d = sample();
  d.diff = "--- a\n+++ b\n@@ -1,2 +1,1 @@\n--- a comment\n keep\n";
  const std::string h = render_report(d);
  EXPECT_NE(h.find("<div class=\"d del\"><span class=\"ln\">1</span>"), std::string::npos);
  EXPECT_EQ(count(section(h, "diff"), "class=\"d file\""), 2u);
}

TEST(Report, EmptyDiffSaysNoAcceptedEdits) {
  ReportData d = sample();
  d.diff.clear();
  d.accepted_steps.clear();
  d.accepted = 0;
  const std::string html = render_report(d);
  EXPECT_TRUE(well_formed(html));
  EXPECT_NE(section(html, "diff").find("No accepted edits"), std::string_view::npos);
  EXPECT_NE(section(html, "accepted").find("No accepted edits"), std::string_view::npos);
  EXPECT_EQ(section(html, "diff").find("class=\"d "), std::string_view::npos);
}

TEST(Report, HeatStripHasABarPerExecutedInstructionAndTheHottestIsTallest) {
  ReportData d = sample();
  d.insts_before = kernel(10, 3, 3);
  for (std::size_t i = 0; i < 10; ++i) d.insts_before[i].cycles = i % 3 == 0 ? 10.0 * static_cast<double>(i) : 0;
  d.insts_before[6].cycles = 500;  // the hottest
  d.hot_before = {{"i6", "i6", 0.8}};
  d.insts_after.clear();
  d.hot_after.clear();
  const std::string html = render_report(d);
  EXPECT_TRUE(well_formed(html));
  const auto strips = svgs(section(html, "hot"));
  ASSERT_EQ(strips.size(), 1u);  // K1 has no profile: no strip, a message
  EXPECT_NE(section(html, "hot").find("No profile."), std::string_view::npos);
  const std::string_view strip = strips[0];
  EXPECT_EQ(count(strip, "<rect class=\"bar\""), 3u);  // i3, i6, i9 (i0 has 0 cycles)
  EXPECT_EQ(count(strip, "<rect class=\"band\""), 1u);
  double tallest = 0;
  std::string tallest_id;
  for (std::size_t i = strip.find("<rect class=\"bar\""); i != std::string_view::npos;
       i = strip.find("<rect class=\"bar\"", i + 1)) {
    const std::size_t h = strip.find("height=\"", i) + 8;
    const double height = std::strtod(std::string(strip.substr(h, 12)).c_str(), nullptr);
    const std::size_t t = strip.find("<title>", i) + 7;
    if (height > tallest) tallest = height, tallest_id = std::string(strip.substr(t, strip.find(' ', t) - t));
  }
  EXPECT_EQ(tallest_id, "i6");
}

TEST(Report, HugeKernelIsAggregatedAndTheFileStaysSmall) {
  ReportData d = sample();
  d.insts_before = kernel(50000, 20000, 20100);
  d.hot_before = {{"i20000", "i20100", 0.3}, {"i1000", "i1999", 0.05}, {"i49990", "i49999", 0.01}};
  d.insts_after = kernel(49990, 20000, 20080);
  d.hot_after = {{"i20000", "i20080", 0.28}};
  const std::string html = render_report(d);
  EXPECT_TRUE(well_formed(html));
  EXPECT_LT(html.size(), 2u * 1000 * 1000);
  const auto strips = svgs(section(html, "hot"));
  ASSERT_EQ(strips.size(), 2u);
  for (const std::string_view s : strips) {
    EXPECT_LE(count(s, "<rect class=\"bar\""), report_max_bars);
    EXPECT_GT(count(s, "<rect class=\"bar\""), report_max_bars / 2);  // the whole kernel is drawn, not a prefix
  }
  EXPECT_EQ(count(strips[0], "<rect class=\"band\""), 3u);
  // Instruction rows only for the hot windows, and at most report_max_window_rows of the 1,000-instruction window.
  EXPECT_NE(html.find("<td class=\"id\">i20050</td>"), std::string::npos);
  EXPECT_EQ(html.find("<td class=\"id\">i30001</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"id\">i1000</td>"), std::string::npos);
  EXPECT_EQ(html.find("<td class=\"id\">i1999</td>"), std::string::npos);
  EXPECT_NE(html.find("800 more instructions, to i1999"), std::string::npos);
}

TEST(Report, NanCostsNeverReachTheSvg) {
  ReportData d = sample();
  d.cost_after = nan;
  d.speedup = nan;
  d.lineages[0].best.emplace_back(10, nan);
  d.lineages[1].best = {{0, nan}, {5, nan}};  // no finite best at all
  for (ReportSeriesPoint& p : d.lineages[2].attempts) p.cost = nan;
  d.accepted_steps[2].cost_after = nan;
  d.insts_before[3].cycles = nan;
  d.insts_before[4].cycles = std::numeric_limits<double>::infinity();
  d.hot_before.push_back({"i3", "i4", nan});
  for (const double before : {10000.0, nan, 0.0}) {
    d.cost_before = before;
    const std::string html = render_report(d);
    EXPECT_TRUE(well_formed(html)) << "cost_before " << before;
    for (const std::string_view s : svgs(html)) {
      EXPECT_EQ(lower(s).find("nan"), std::string::npos) << "cost_before " << before;
      EXPECT_EQ(lower(s).find("inf"), std::string::npos) << "cost_before " << before;
    }
    EXPECT_EQ(lower(html).find("nan"), std::string::npos) << "cost_before " << before;
    EXPECT_EQ(count(svgs(section(html, "progress")).at(0), "<polyline"), 3u);
    const std::string_view progress = section(html, "progress");
    const std::size_t row = progress.find("<td>L1</td>");  // no finite best: its best is n/a, not 1.00x
    ASSERT_NE(row, std::string_view::npos);
    EXPECT_NE(progress.substr(row, progress.find("</tr>", row) - row).find(">n/a</td>"), std::string_view::npos);
    EXPECT_NE(html.find("<div class=\"big\">n/a</div>"), std::string::npos);
  }
}

TEST(Report, EdgeCasesStillGiveAWholePage) {
  // Nothing at all.
  const std::string empty = render_report(ReportData{});
  EXPECT_TRUE(well_formed(empty));
  EXPECT_NE(section(empty, "progress").find("No lineage ran"), std::string_view::npos);
  EXPECT_EQ(count(empty, "<polyline"), 0u);

  // Lineages that made no attempt, and one with a single timed attempt and a single best point.
  ReportData d = sample();
  d.lineages = {ReportLineage{0, "builtin", "waitcnt", {}, {}}, ReportLineage{1, "builtin", "nop", {}, {}}};
  d.attempts = 0;
  const std::string none = render_report(d);
  EXPECT_TRUE(well_formed(none));
  EXPECT_EQ(count(svgs(section(none, "progress")).at(0), "<polyline"), 2u);
  EXPECT_EQ(count(none, "<circle"), 0u);

  d.lineages = {ReportLineage{0, "builtin", "waitcnt", {{1, 9000, "accepted"}}, {{1, 9000}}}};
  const std::string one = render_report(d);
  EXPECT_TRUE(well_formed(one));
  const auto lines = polylines(svgs(section(one, "progress")).at(0));
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_GE(lines[0].size(), 2u);  // a single point is still a visible line
  EXPECT_NE(lines[0].front().first, lines[0].back().first);

  // Many attempts: dots are thinned, every accepted one kept, and the page says so.
  ReportLineage big{0, "builtin", "sweep", {}, {{0, 10000}}};
  for (std::uint64_t a = 1; a <= 20000; ++a)
    big.attempts.push_back({a, a % 1000 == 0 ? 9000.0 : 10100.0, a % 1000 == 0 ? "accepted" : "slower"});
  d.lineages = {big};
  const std::string many = render_report(d);
  EXPECT_TRUE(well_formed(many));
  const std::string_view chart = svgs(section(many, "progress")).at(0);
  EXPECT_LE(count(chart, "<circle"), report_max_dots);
  EXPECT_EQ(count(chart, "class=\"dot o-acc\""), 20u);
  EXPECT_NE(many.find("of 20,000 attempts as dots"), std::string::npos);
}

}  // namespace
}  // namespace asmevo::agent
