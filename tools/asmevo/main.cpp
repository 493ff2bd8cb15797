// asmevo: the command-line tool (DESIGN.md "CLI contract"). Exit codes: 0 ok, 1 negative answer,
// 2 bad input or usage, 3 internal error.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/preprocess.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/encode.hpp"

using asmevo::mc::parse_hex_bytes;
#include "asmevo/support/file.hpp"
#include "cli.hpp"
#include "verbs.hpp"

namespace {

using namespace asmevo;

using namespace asmevo::cli;

const char* const usage_text = R"(usage: asmevo <verb> [args]

verbs:
  fmt FILE.s --mcpu TARGET [-o OUT.s] [-I DIR] [--json]   parse and re-print assembly text
  encode FILE.s --mcpu TARGET [-I DIR] [--json]     bytes of every instruction (through LLVM MC)
  decode --mcpu TARGET (HEXBYTES | --file F) [--json]   instructions from bytes
  inspect K.co [--json]                             kernels, descriptor fields, args, resources
  disasm K.co [-o K.s]                              reassemblable text (.amdhsa_kernel blocks, metadata, data)
  assemble K.s -o K.co [--original K0.co] [--no-patch] [--exact-resources] [--json]
                                                    rebuild a loadable code object; with --original, the host
                                                    ABI of K0 is kept (or refused) and a size-neutral edit is
                                                    patched into K0 in place
  roundtrip K.co [-o K1.co] [--json]                recover + rebuild, no edit; 0 iff identical
  emulate K.co --launch L.json [--shape N] [--dump DIR] [--seed S] [--eager] [--threads N] [--trial T] [--no-preload]
          [--limit N] [--no-hazards] [--timing] [--json]
                                                    run a kernel on the CPU emulator (exit 1 when it stops on a
                                                    fault, waitcnt or hazard violation, or unsupported
                                                    instruction); --timing adds modeled cycles
  emulate --coverage --mcpu TARGET [--json]         each opcode: exact | approximate | unsupported
  verify K0.co K1.co --launch L.json [--executor emu|hip] [--receipt R.json] [--trials N] [--seed S]
          [--schedules N] [--limit N] [--no-static] [--no-state-check] [--no-probes] [--no-refute]
          [--require-proof] [--json]
                                                    differential verification of K1 against K0: ABI, static
                                                    checks, memory-model bits, then runs on every shape and
                                                    trial of L.json (one spec or an array), then probe trials
                                                    (specials, ties, wide magnitudes, the code's constants);
                                                    --require-proof also needs the prover's proof; exit 0 equivalent,
                                                    1 not equivalent, 2 bad input, K0 failing or no device
  check K.co [--json]                               static checks (waitcnt, hazards, ABI) of every kernel
  passes [--json]                                   the built-in passes, one line each
  apply K.co (--pass NAMES | --edits E.json) -o K1.co [--kernel NAME] [--launch L.json] [--dry-run] [--json]
                                                    run passes (a,b:key=value) or a JSON edit script
                                                    (schema/edit-script.schema.json) through the Rewriter and
                                                    rebuild; --dry-run prints the diff and writes nothing;
                                                    a script with any problem is rejected whole; --launch
                                                    keeps changes to code K0's runs of L.json exercise
  optimize K0.co --launch L.json -o K1.co [--budget N] [--seed S] [--lineages N] [--jobs N] [--executor emu|hip]
           [--log DIR] [--resume DIR] [--report R.html] [--tokens N] [--time SEC] [--min-gain F] [--json]
           [--llm URL --model M [--llm-key K] [--llm-timeout SEC]]   (key: ASMEVO_LLM_KEY or OPENAI_API_KEY)
                                                    search for a faster K1 that verifies equivalent to K0:
                                                    lineages of proposed edit scripts, each candidate gated
                                                    by static checks and differential verification, then
                                                    timed (modeled cycles on emu); exit 0 with K1 written,
                                                    1 when nothing verified was faster
  optimize-dir DIR -o OUT [--executor emu|hip] [--jobs N] [--budget N] [--seed S] [--time SEC] [--shard I/N]
               [--resume] [--json]
                                                    optimize every kernel of a capture folder (each
                                                    DIR/<HASH>/<kernel>.hsaco against all of its
                                                    <kernel>.launch.json), up to --jobs at once (default: the
                                                    cores; 1 with --executor hip), each an `optimize` child
                                                    (--jobs 1, the same --seed); improved kernels go to
                                                    OUT/override/<HASH>/ laid out as Triton's dump (for
                                                    TRITON_OVERRIDE_DIR), logs and results to OUT/work; a rerun
                                                    resumes (--resume or not) and skips finished kernels (not
                                                    those with failed attempts: they run again); --shard
                                                    I/N takes the kernels whose index is I mod N; --time makes
                                                    results depend on the machine; exit 0 when a kernel improved,
                                                    1 when none did, 2 when one failed
  optimize-dir --merge OUT1 OUT2 ... -o OUT [--json]   join shards' outputs into a new OUT (a kernel with
                                                    different K1 bytes in two of them is an error)
  triton list DIR [--json]                          the kernels of a Triton cache (TRITON_CACHE_DIR) or dump
                                                    (TRITON_DUMP_DIR) folder: target, warp size, num_warps, shared
                                                    memory, signature, Triton version, .hsaco; a kernel that cannot be
                                                    read is named on stderr (exit 2) and the others still listed
  help                                              this text

TARGET: gfx90a, gfx942 (gfx940/gfx941 are read as gfx942) or gfx950.
Files that use .include, .macro, .rept, .irp or .if are expanded first (includes are searched in the
file's own folder, then in each -I DIR), so fmt prints the expanded program.
Exit codes: 0 success, 1 negative answer, 2 bad input or usage, 3 internal error.
assemble, roundtrip, apply, optimize and optimize-dir link with ld.lld: $ASMEVO_LLD, else ld.lld-22 or ld.lld on PATH,
else /usr/lib/llvm-22/bin/ld.lld; optimize and optimize-dir refuse to start (exit 2) without one.
)";

std::string hex_bytes(const std::vector<std::uint8_t>& b) {
  std::string s;
  char buf[8];
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s0x%02x", i ? "," : "", b[i]);
    s += buf;
  }
  return s;
}

std::optional<Target> target_of(const Args& a, int& rc) {
  auto it = a.opt.find("--mcpu");
  if (it == a.opt.end()) { rc = usage_error("--mcpu TARGET is required (gfx90a, gfx942 or gfx950)"); return {}; }
  auto t = parse_target(it->second);
  if (!t) { rc = usage_error("unknown --mcpu '" + it->second + "': expected gfx90a, gfx942 or gfx950"); return {}; }
  return t;
}

int cmd_fmt(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"--mcpu", "-o", "-I"}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("fmt takes exactly one input file");
  int rc = 0;
  auto t = target_of(a, rc);
  if (!t) return rc;
  auto p = load_program(a.pos[0], *t, a.multi["-I"], rc);
  if (!p) return rc;
  std::string out = print_program(*p);
  if (auto o = a.opt.find("-o"); o != a.opt.end()) {
    if (same_file(o->second, a.pos[0])) return usage_error("-o '" + o->second + "' would overwrite the input");
    if (auto w = write_file_atomic(o->second, out); !w) return report(w.error());
    if (a.opt.count("--json"))
      std::cout << "{\"output\": \"" << json_escape(o->second) << "\", \"instructions\": " << p->instruction_count() << "}\n";
    return exit_ok;
  }
  std::cout << out;
  return exit_ok;
}

int cmd_encode(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"--mcpu", "-I"}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("encode takes exactly one input file");
  int rc = 0;
  auto t = target_of(a, rc);
  if (!t) return rc;
  auto p = load_program(a.pos[0], *t, a.multi["-I"], rc);
  if (!p) return rc;
  auto enc = mc::Encoder::create(*t);
  if (!enc) return report(enc.error());
  auto bytes = (*enc)->encode_placed(*p);
  if (!bytes) {
    auto d = std::move(bytes).error();
    if (d.loc.file.empty()) d.loc.file = a.pos[0];
    return report(d);
  }
  const bool json = a.opt.count("--json") != 0;
  if (json) std::cout << "[\n";
  std::size_t k = 0;
  for (const auto& it : p->items) {
    if (it.kind != Item::Kind::inst) continue;
    const auto& b = (*bytes)[k].bytes;
    const std::uint64_t offset = (*bytes)[k].offset;
    const std::string text = print_inst(it.inst);
    if (json) {
      std::cout << (k ? ",\n" : "") << "  {\"id\": \"i" << it.inst.id.value << "\", \"offset\": " << offset
                << ", \"text\": \"" << json_escape(text) << "\", \"bytes\": [" << json_bytes(b) << "]}";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%06llx: ", static_cast<unsigned long long>(offset));
      std::cout << buf << text << " ; i" << it.inst.id.value << " [" << hex_bytes(b) << "]\n";
    }
    ++k;
  }
  if (json) std::cout << "\n]\n";
  return exit_ok;
}

int cmd_decode(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"--mcpu", "--file"}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  int rc = 0;
  auto t = target_of(a, rc);
  if (!t) return rc;
  std::vector<std::uint8_t> bytes;
  if (auto f = a.opt.find("--file"); f != a.opt.end()) {
    if (!a.pos.empty()) return usage_error("decode takes either HEXBYTES or --file, not both");
    auto d = read_file(f->second);
    if (!d) return report(d.error());
    bytes.assign(d->begin(), d->end());
  } else {
    if (a.pos.empty()) return usage_error("decode needs HEXBYTES or --file F");
    std::string all;
    for (const auto& s : a.pos) all += s + " ";
    auto b = parse_hex_bytes(all);
    if (!b) return report(b.error());
    bytes = std::move(*b);
  }
  auto dec = mc::Encoder::create(*t);
  if (!dec) return report(dec.error());
  auto insts = (*dec)->decode(bytes);
  if (!insts) return report(insts.error());
  const bool json = a.opt.count("--json") != 0;
  if (json) std::cout << "[\n";
  std::size_t k = 0;
  for (const auto& d : *insts) {
    const std::string text = print_inst(d.inst);
    if (json)
      std::cout << (k ? ",\n" : "") << "  {\"offset\": " << d.offset << ", \"size\": " << d.size << ", \"text\": \""
                << json_escape(text) << "\", \"form\": \"" << json_escape(form_name(d.inst)) << "\"}";
    else
      std::cout << text << "\n";
    ++k;
  }
  if (json) std::cout << "\n]\n";
  return exit_ok;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << usage_text;
    return exit_bad_input;
  }
  std::string_view verb = argv[1];
  if (verb == "help" || verb == "--help" || verb == "-h") {
    std::cout << usage_text;
    return exit_ok;
  }
  // `asmevo VERB --help`: the usage entry of that verb (its line and the indented lines under it), or all of it.
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg != "--help" && arg != "-h") continue;
    const std::string_view text = usage_text;
    const std::string head = "  " + std::string(verb) + " ";
    std::string entry;
    bool in = false;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = std::min(text.find('\n', at), text.size());
      const std::string_view line = text.substr(at, end - at);
      if (line.starts_with(head) || line == "  " + std::string(verb)) in = true;
      else if (in && !(line.starts_with("    ") || line.starts_with("   "))) in = false;
      if (in) entry.append(line).push_back('\n');
      at = end + 1;
    }
    std::cout << (entry.empty() ? std::string(usage_text) : "usage: asmevo\n" + entry);
    return exit_ok;
  }
  if (verb == "fmt") return cmd_fmt(argc, argv);
  if (verb == "encode") return cmd_encode(argc, argv);
  if (verb == "decode") return cmd_decode(argc, argv);
  if (verb == "inspect") return cmd_inspect(argc, argv);
  if (verb == "disasm") return cmd_disasm(argc, argv);
  if (verb == "assemble") return cmd_assemble(argc, argv);
  if (verb == "roundtrip") return cmd_roundtrip(argc, argv);
  if (verb == "emulate") return cmd_emulate(argc, argv);
  if (verb == "verify") return cmd_verify(argc, argv);
  if (verb == "check") return cmd_check(argc, argv);
  if (verb == "passes") return cmd_passes(argc, argv);
  if (verb == "apply") return cmd_apply(argc, argv);
  if (verb == "optimize") return cmd_optimize(argc, argv);
  if (verb == "optimize-dir") return cmd_optimize_dir(argc, argv);
  if (verb == "triton") return cmd_triton(argc, argv);
  return usage_error("unknown verb '" + std::string(verb) + "'");
}

}  // namespace

int main(int argc, char** argv) {
  // The library reports errors as values; anything thrown here (std::bad_alloc, a broken invariant in a
  // standard container) is an internal error: exit 3 with a message, never an abort.
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "asmevo: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "asmevo: internal error\n";
  }
  return 3;
}
