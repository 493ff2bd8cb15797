// The asmevo verbs on code objects: inspect, disasm, assemble, roundtrip (DESIGN.md "CLI contract").
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/analysis/resources.hpp"
#include "asmevo/codeobject/compare.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/support/file.hpp"
#include "cli.hpp"
#include "loaded.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

using codeobject::ElfFile;
using codeobject::Module;

/// Reads a code object named on the command line; prints the problem and sets rc on failure.
std::optional<ElfFile> load_object(const std::string& path, int& rc) {
  auto f = ElfFile::read(path);
  if (!f) {
    rc = report(f.error());
    return std::nullopt;
  }
  return std::move(*f);
}

/// Recovers a code object (the target comes from its e_flags).
std::optional<Module> load_module(const ElfFile& elf, std::unique_ptr<mc::Encoder>& enc, int& rc) {
  auto e = codeobject::encoder_for(elf);
  if (!e) {
    rc = report(e.error());
    return std::nullopt;
  }
  enc = std::move(*e);
  auto m = codeobject::recover(elf, *enc);
  if (!m) {
    rc = report(m.error());
    return std::nullopt;
  }
  return std::move(*m);
}

std::optional<Loaded> load_recovered(const std::string& path, int& rc) {
  auto elf = load_object(path, rc);
  if (!elf) return std::nullopt;
  std::unique_ptr<mc::Encoder> enc;
  auto m = load_module(*elf, enc, rc);
  if (!m) return std::nullopt;
  return Loaded{std::move(*elf), std::move(enc), std::move(*m)};
}

namespace {

using namespace asmevo::codeobject;
using Json = nlohmann::ordered_json;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

Json kernel_json(const ElfFile& elf, const KernelInfo& k, Target t, int cov) {
  Json j;
  j["name"] = k.name;
  j["code_address"] = k.code_addr;
  const Symbol* s = elf.find_symbol(k.name);
  j["code_size"] = s ? s->size : 0;
  j["descriptor_address"] = k.descriptor_addr;
  Json d = Json::object();
  for (const auto& f : fields(k.descriptor, t, cov)) d[std::string(f.info->name)] = f.raw;
  j["descriptor"] = d;
  j["metadata"] = k.metadata;
  return j;
}

}  // namespace

int cmd_inspect(int argc, char** argv) {
  auto a = parse_args(argc, argv, {}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("inspect takes exactly one code object");
  int rc = 0;
  auto loaded = load_recovered(a.pos[0], rc);
  if (!loaded) return rc;
  const ElfFile* elf = &loaded->elf;
  Module* m = &loaded->m;
  const bool json = a.opt.count("--json") != 0;
  auto metas = kernels(m->metadata);
  if (!metas) return report(metas.error());

  if (json) {
    Json out;
    out["file"] = a.pos[0];
    out["target"] = m->target_id;
    out["code_object_version"] = m->code_object_version;
    out["e_flags"] = describe_flags(elf->e_flags());
    Json ks = Json::array();
    for (const auto& k : m->kernels) ks.push_back(kernel_json(*elf, k, m->target, m->code_object_version));
    out["kernels"] = ks;
    Json secs = Json::array();
    for (const auto& s : elf->sections())
      if (s.index != 0) secs.push_back(Json{{"name", s.name}, {"type", section_type_name(s.type)}, {"address", s.addr}, {"size", s.size}});
    out["sections"] = secs;
    out["instructions"] = m->program.instruction_count();
    std::cout << out.dump(2) << "\n";
    return exit_ok;
  }
  std::cout << a.pos[0] << ": AMDGPU code object v" << m->code_object_version << ", " << m->target_id << " (e_flags "
            << describe_flags(elf->e_flags()) << "), " << m->kernels.size() << " kernel(s), "
            << m->program.instruction_count() << " instructions\n";
  for (const auto& k : m->kernels) {
    const Symbol* s = elf->find_symbol(k.name);
    std::cout << "\nkernel " << k.name << ": code at " << hex(k.code_addr) << " (" << (s ? s->size : 0)
              << " bytes), descriptor " << k.name << ".kd at " << hex(k.descriptor_addr) << "\n";
    const KernelMeta* km = nullptr;
    for (const auto& x : *metas)
      if (x.symbol == k.name + ".kd") km = &x;
    if (km != nullptr) {
      std::cout << "  kernarg segment: " << km->kernarg_segment_size << " bytes, align " << km->kernarg_segment_align << "\n";
      for (const auto& arg : km->args) {
        char line[256];
        std::snprintf(line, sizeof line, "    %4llu %3llu  %-28s %-20s %s\n", static_cast<unsigned long long>(arg.offset),
                      static_cast<unsigned long long>(arg.size), arg.value_kind.c_str(),
                      arg.name.empty() ? (arg.is_hidden() ? "(hidden)" : "-") : arg.name.c_str(), arg.address_space.c_str());
        std::cout << line;
      }
      std::cout << "  resources: " << km->vgpr_count << " VGPRs, " << km->agpr_count.value_or(0) << " AGPRs, "
                << km->sgpr_count << " SGPRs, LDS " << km->group_segment_fixed_size << " bytes, scratch "
                << km->private_segment_fixed_size << " bytes/lane, wave" << km->wavefront_size << ", max workgroup "
                << km->max_flat_workgroup_size << "\n";
    }
    std::cout << "  descriptor:\n";
    for (const auto& f : fields(k.descriptor, m->target, m->code_object_version))
      std::cout << "    " << f.info->name << " = " << f.value << (f.problem ? "   (reserved bits set)" : "") << "\n";
  }
  for (const auto& n : m->notes) std::cout << "note: " << n.message << "\n";
  return exit_ok;
}

int cmd_disasm(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"-o"}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("disasm takes exactly one code object");
  int rc = 0;
  auto loaded = load_recovered(a.pos[0], rc);
  if (!loaded) return rc;
  const ElfFile* elf = &loaded->elf;
  Module* m = &loaded->m;
  const std::string text = print_module(*m);
  for (const auto& n : m->notes) std::cerr << "asmevo: note: " << n.message << "\n";
  if (auto o = a.opt.find("-o"); o != a.opt.end()) {
    if (same_file(o->second, a.pos[0])) return usage_error("-o '" + o->second + "' would overwrite the input");
    if (auto w = write_file_atomic(o->second, text); !w) return report(w.error());
    if (a.opt.count("--json"))
      std::cout << Json{{"output", o->second}, {"kernels", m->kernels.size()}, {"instructions", m->program.instruction_count()}}.dump() << "\n";
    return exit_ok;
  }
  std::cout << text;
  return exit_ok;
}

/// Reads a `.s` whose `.amdgcn_target` names the processor.
std::optional<Program> load_module_text(const std::string& path, int& rc) {
  auto text = read_file(path);
  if (!text) {
    rc = report(text.error());
    return std::nullopt;
  }
  // The target is the .amdgcn_target directive's processor.
  std::optional<Target> t;
  const auto at = text->find(".amdgcn_target");
  if (at != std::string::npos) {
    const auto q = text->find("amdgcn-amd-amdhsa--", at);
    const auto eol = text->find('\n', at);
    if (q != std::string::npos && q < eol) {
      std::string proc = text->substr(q + 19, std::min(eol, text->find_first_of(":\"", q + 19)) - (q + 19));
      t = parse_target(proc);
      if (!t) {
        rc = report(make_diag(DiagCode::unsupported, "processor '" + proc + "' in .amdgcn_target is not supported (gfx90a, gfx942, gfx950)",
                              Loc{path, static_cast<std::uint32_t>(std::count(text->begin(), text->begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1), 0, {}}));
        return std::nullopt;
      }
    }
  }
  if (!t) {
    rc = report(make_diag(DiagCode::parse_error, "no .amdgcn_target directive: cannot tell the processor", Loc{path, 0, 0, {}}, {},
                          "add `.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"` (asmevo disasm writes it)"));
    return std::nullopt;
  }
  return load_program(path, *t, {}, rc);
}

int cmd_assemble(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"-o", "--original"}, {"--json", "--no-patch", "--exact-resources"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("assemble takes exactly one .s file");
  auto out = a.opt.find("-o");
  if (out == a.opt.end()) return usage_error("assemble needs -o K.co");
  if (same_file(out->second, a.pos[0])) return usage_error("-o '" + out->second + "' would overwrite the input");
  int rc = 0;
  auto p = load_module_text(a.pos[0], rc);
  if (!p) return rc;
  auto tid = program_target(*p);
  if (!tid) return report(tid.error());
  auto enc = mc::Encoder::create(p->target, llvm_features(tid->target_id));
  if (!enc) return report(enc.error());
  RebuildOptions opt;
  std::optional<Loaded> k0;
  if (auto o = a.opt.find("--original"); o != a.opt.end()) {
    if (same_file(out->second, o->second)) return usage_error("-o '" + out->second + "' would overwrite the original");
    k0 = load_recovered(o->second, rc);
    if (!k0) return rc;
    opt.original = &k0->elf;
    opt.recovered = &k0->m;
  }
  opt.allow_patch = a.opt.count("--no-patch") == 0;
  if (a.opt.count("--exact-resources")) opt.policy = RecountPolicy::exact;
  auto r = rebuild(std::move(*p), **enc, opt);
  if (!r) return report(r.error());
  if (auto w = write_file_atomic(out->second, std::string_view(reinterpret_cast<const char*>(r->bytes.data()), r->bytes.size())); !w)
    return report(w.error());
  if (a.opt.count("--json")) {
    std::cout << Json{{"output", out->second}, {"path", std::string(to_string(r->path))}, {"why_relinked", r->why_relinked},
                      {"resource_changes", r->changes}, {"bytes", r->bytes.size()}}.dump() << "\n";
  } else {
    std::cerr << "asmevo: " << out->second << ": " << to_string(r->path);
    if (!r->why_relinked.empty()) std::cerr << " (no in-place patch: " << r->why_relinked << ")";
    std::cerr << "\n";
    for (const auto& c : r->changes) std::cerr << "asmevo: " << c << "\n";
  }
  return exit_ok;
}

int cmd_roundtrip(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"-o"}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("roundtrip takes exactly one code object");
  int rc = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto loaded = load_recovered(a.pos[0], rc);
  if (!loaded) return rc;
  const ElfFile* elf = &loaded->elf;
  Module* m = &loaded->m;
  mc::Encoder* enc = loaded->enc.get();
  // Through the text, as a user's edit would go: print, parse, rebuild by relinking (no patch shortcut).
  const std::string text = print_module(*m);
  auto p = parse_program(text, m->target, a.pos[0] + ".s");
  if (!p) {
    Diag d = p.error();
    d.code = DiagCode::internal;
    d.message = "the recovered text does not parse: " + d.message;
    return report(d);
  }
  RebuildOptions opt;
  opt.original = &*elf;
  opt.recovered = &*m;
  opt.allow_patch = false;
  // Recovery's own text failing to rebuild is asmevo's fault (exit 3), unless the cause is outside it (no linker).
  const auto own_fault = [&](Diag d) {
    if (d.code != DiagCode::usage && d.code != DiagCode::io_error) {
      d.message = "the recovered program does not rebuild: " + d.message;
      d.code = DiagCode::internal;
    }
    return report(d);
  };
  auto r = rebuild(std::move(*p), *enc, opt);
  if (!r) return own_fault(r.error());
  auto k1 = ElfFile::parse(r->bytes, "<rebuilt>");
  if (!k1) return own_fault(k1.error());
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const Comparison c = compare_objects(*elf, *k1);
  if (auto o = a.opt.find("-o"); o != a.opt.end()) {
    if (same_file(o->second, a.pos[0])) return usage_error("-o '" + o->second + "' would overwrite the input");
    if (auto w = write_file_atomic(o->second, std::string_view(reinterpret_cast<const char*>(r->bytes.data()), r->bytes.size())); !w)
      return report(w.error());
  }
  const auto section = [&](const char* name, const std::vector<std::string>& d) {
    if (a.opt.count("--json")) return;
    std::cout << "  " << name << ": " << (d.empty() ? "identical" : "DIFFERENT") << "\n";
    for (const auto& x : d) std::cout << "    " << x << "\n";
  };
  if (a.opt.count("--json")) {
    std::cout << Json{{"file", a.pos[0]}, {"identical", c.identical()}, {"kernels", m->kernels.size()},
                      {"instructions", m->program.instruction_count()}, {"text", c.text}, {"descriptors", c.descriptors},
                      {"metadata", c.metadata}, {"symbols", c.symbols}, {"target", c.target}, {"data", c.data}, {"relocations", c.relocations}, {"milliseconds", ms}}.dump() << "\n";
  } else {
    std::cout << a.pos[0] << ": " << m->kernels.size() << " kernel(s), " << m->program.instruction_count() << " instructions, "
              << (c.identical() ? "roundtrip identical" : "roundtrip DIFFERS") << "\n";
    section(".text", c.text);
    section("descriptors", c.descriptors);
    section("metadata", c.metadata);
    section("symbols", c.symbols);
    section("target", c.target);
    section("data sections", c.data);
    section("relocations", c.relocations);
  }
  return c.identical() ? exit_ok : exit_negative;
}

}  // namespace asmevo::cli
