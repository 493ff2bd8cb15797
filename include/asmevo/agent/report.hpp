// The HTML page `asmevo optimize --report R.html` writes: the verdict, best speedup over attempts per lineage, the
// accepted edits and their diff, and where modeled time goes over the kernel before and after.
//
// The page is one self-contained file: inline CSS and SVG, no script, no font or image from the network. It is
// built only from a ReportData, so the search can write it at the end of a run, on resume, or from a saved log.
// Every string taken from the run (kernel names, paths, instruction text, summaries, notes, the diff) is escaped;
// class names and colours come from fixed tables, never from the data. Whatever the data, every number written into
// an SVG coordinate is finite. Large inputs are bounded so that the file stays small enough to open: the heat strips
// draw at most report_max_bars bars, the chart at most report_max_dots dots, and instruction tables list only the
// hot windows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "asmevo/support/linkage.hpp"

namespace asmevo::agent {

/// One attempt of a lineage.
struct ReportSeriesPoint {
  std::uint64_t attempt = 0;  ///< attempt number in the run
  /// The candidate's cost when it was timed (modeled cycles, or measured us: ReportData::modeled); NaN when it was
  /// not timed (rejected before timing, or nothing was proposed).
  double cost = std::numeric_limits<double>::quiet_NaN();
  std::string outcome;  ///< "accepted", "slower", "not_equivalent", "invalid", "no_proposal", "unchanged" or "failed"
  std::string summary;  ///< the proposer's one line (optional: shown when the pointer rests on the attempt's dot)
};

/// One lineage of the search: who proposed, with which strategy, every attempt and its best cost over time.
struct ReportLineage {
  std::uint32_t index = 0;
  std::string proposer;  ///< e.g. "builtin", "llm:<model>"
  std::string strategy;
  std::vector<ReportSeriesPoint> attempts;  ///< in attempt order
  /// (attempt, best cost so far) at each improvement, in attempt order; usually starts with (0, cost of K0). A
  /// lineage with no finite best is drawn at 1.00x (the cost of K0).
  std::vector<std::pair<std::uint64_t, double>> best;
};

/// One instruction of the launched kernel with the modeled wave-cycles attributed to it (0 when not executed).
struct ReportHotInst {
  std::string id;    ///< as `asmevo disasm` prints it, e.g. "i42"
  std::string text;  ///< the instruction as printed, without the id comment
  double cycles = 0;
};

/// A stretch of code where modeled time concentrates (model::HotWindow): ids of its first and last instructions.
struct ReportHotWindow {
  std::string first, last;
  double share = 0;  ///< fraction (0..1) of all attributed wave-cycles
};

/// One accepted step of the search.
struct ReportAccepted {
  std::uint64_t attempt = 0;
  std::uint32_t lineage = 0;  ///< ReportLineage::index
  std::string summary;        ///< what the edit does, in the proposer's words
  double cost_before = 0, cost_after = 0;  ///< of the parent and of the accepted candidate (same unit as the run)
};

/// Everything the report shows. Costs are modeled cycles when `modeled` (executor "emu"), measured microseconds
/// otherwise (executor "hip"); hot-window profiles are always modeled wave-cycles.
struct ReportData {
  std::string kernel, target, k0_path, k1_path;
  std::string executor;  ///< "emu" (modeled cycles) or "hip" (measured us)
  bool modeled = true;
  double cost_before = 0, cost_after = 0;
  double speedup = 1;  ///< cost_before / cost_after, as the run reports it
  bool verified = false;
  std::uint64_t attempts = 0, accepted = 0, tokens = 0;
  double seconds = 0;  ///< wall time of the run
  std::uint64_t seed = 0;
  std::vector<ReportLineage> lineages;
  std::vector<ReportAccepted> accepted_steps;  ///< in the order they were accepted
  /// Unified diff K0 -> K1 of the kernel's assembly text ("--- ", "+++ ", "@@", "+", "-", " " lines); empty when no
  /// edit was accepted.
  std::string diff;
  std::vector<ReportHotInst> insts_before;  ///< K0's profile: every instruction in address order
  std::vector<ReportHotWindow> hot_before;  ///< K0's hot windows, hottest first
  std::vector<ReportHotInst> insts_after;   ///< K1's profile (may be empty)
  std::vector<ReportHotWindow> hot_after;   ///< K1's hot windows
  std::vector<std::string> notes;           ///< limits, what was deferred, the verification receipt's summary
  /// The cost model's speed-of-light bound (modeled cycles on the timed shape) of K0 and of K1, what binds each, and
  /// the modeled cycles of the same runs; 0 where not computed (a measured run).
  double bound_before = 0, bound_after = 0, profiled_before = 0, profiled_after = 0;
  std::string bound_kind_before, bound_kind_after;
};

/// Most bars a heat strip draws: a longer kernel is drawn in contiguous buckets of instructions, each bar the sum of
/// its bucket's cycles.
inline constexpr std::size_t report_max_bars = 1000;
/// Most attempt dots the chart draws: past it every accepted attempt is kept and the others are thinned evenly (the
/// page says so). Each dot carries a tooltip of about 150 bytes.
inline constexpr std::size_t report_max_dots = 3000;
/// Most hot windows listed per profile, most instructions listed per window, and most diff lines shown.
inline constexpr std::size_t report_max_windows = 12, report_max_window_rows = 200, report_max_diff_lines = 20000;

/// The report page for `d`: a complete, self-contained HTML document (UTF-8, inline CSS and SVG, no script, nothing
/// loaded from the network) that ends with "</html>\n". Text from `d` is escaped; NaN or infinite costs are shown as
/// "n/a" and never reach an SVG coordinate. Size grows with the numbers of attempts and accepted steps and the diff,
/// not with the kernel's length beyond report_max_bars bars and the hot windows' rows.
[[nodiscard]] ASMEVO_OUTLINE std::string render_report(const ReportData& d);

}  // namespace asmevo::agent

// The page's HTML, CSS and SVG, and render_report's body, where this translation unit compiles it.
#if ASMEVO_BODY_AGENT
#include "asmevo/agent/detail/report_html.hpp"
#endif
