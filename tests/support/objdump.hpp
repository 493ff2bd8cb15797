// Instruction lines of a code object as llvm-objdump-22 disassembles them, with the bytes it shows and with
// symbolic branch targets replaced by dword offsets so that each line assembles on its own.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "asmevo/ir/detail/line_parser.hpp"

namespace asmevo::test {

struct ObjdumpLine {
  std::string text;                ///< instruction text, branch labels resolved to offsets
  std::uint64_t address = 0;
  std::vector<std::uint8_t> bytes; ///< the bytes in the file, from objdump's comment
};

/// Runs `objdump -t -d --mcpu=target path`; returns false (and the output in `err`) if it fails.
inline bool objdump_lines(const std::string& objdump, const std::string& target, const std::string& path,
                          std::vector<ObjdumpLine>& out, std::string& err) {
  const std::string cmd = objdump + " -t -d --mcpu=" + target + " '" + path + "' 2>&1";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) { err = "cannot run " + cmd; return false; }
  std::string text;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
  if (pclose(pipe) != 0) { err = text.substr(0, 500); return false; }
  std::vector<std::string> lines;
  for (std::size_t b = 0; b < text.size();) {
    auto e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    lines.push_back(text.substr(b, e - b));
    b = e + 1;
  }
  // Symbol table rows: `000000000000901c l       .text	0000000000000000 code_exit`.
  std::map<std::string, std::uint64_t> symbols;
  for (const auto& l : lines) {
    if (l.size() < 17 || !std::isxdigit(static_cast<unsigned char>(l[0])) || l.find(".text") == std::string::npos) continue;
    symbols[l.substr(l.find_last_of(" \t") + 1)] = std::stoull(l.substr(0, 16), nullptr, 16);
  }
  for (const auto& l : lines) {
    if (l.empty() || l[0] != '\t') continue;
    const auto c = l.find("//");
    if (c == std::string::npos) continue;
    std::string ins(detail::trim(std::string_view(l).substr(0, c)));
    if (ins.empty() || ins[0] == '.' || ins[0] == '<') continue;
    ObjdumpLine o;
    const auto colon = l.find(':', c);
    if (colon == std::string::npos) continue;
    o.address = std::stoull(l.substr(c + 2, colon - c - 2), nullptr, 16);
    std::size_t i = colon + 1;
    while (i < l.size()) {  // little-endian dwords
      while (i < l.size() && l[i] == ' ') ++i;
      std::size_t b = i;
      while (i < l.size() && std::isxdigit(static_cast<unsigned char>(l[i]))) ++i;
      if (i - b != 8) break;
      const auto w = static_cast<std::uint32_t>(std::stoul(l.substr(b, 8), nullptr, 16));
      for (int k = 0; k < 4; ++k) o.bytes.push_back(static_cast<std::uint8_t>(w >> (8 * k)));
    }
    // SOPP branches print their target as a symbol when one names it.
    if (ins.rfind("s_", 0) == 0 && ins.find(' ') != std::string::npos) {
      const std::string last = ins.substr(ins.rfind(' ') + 1);
      if (auto it = symbols.find(last); it != symbols.end()) {
        const auto off = (static_cast<std::int64_t>(it->second) - static_cast<std::int64_t>(o.address) - 4) / 4;
        ins = ins.substr(0, ins.rfind(' ') + 1) + std::to_string(off);
      }
    }
    o.text = std::move(ins);
    out.push_back(std::move(o));
  }
  return true;
}

/// The asmevo target an objdump of `path` should use, from the file's name ("" if none of ours).
inline std::string target_of_name(const std::string& s) {
  for (const char* t : {"gfx90a", "gfx942", "gfx950"})
    if (s.find(t) != std::string::npos) return t;
  return {};
}

}  // namespace asmevo::test
