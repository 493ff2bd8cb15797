// The NT_AMDGPU_METADATA note: msgpack decode/encode (key order kept), typed and validated kernel views, and
// the YAML text that LLVM's assembler reads back between .amdgpu_metadata and .end_amdgpu_metadata.
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/json_pointer.hpp"

namespace asmevo::codeobject {

/// Metadata documents are ordered JSON everywhere, so that re-encoding keeps the producer's key order.
using MetaJson = nlohmann::ordered_json;

namespace detail {

/// Nesting deeper than this is refused before nlohmann's recursive reader sees the bytes (AMDGPU metadata nests
/// 4 deep: root map, kernel list, kernel map, argument list, argument map).
inline constexpr std::size_t max_msgpack_depth = 64;

/// Walks a msgpack document without recursion and checks what nlohmann's reader would otherwise find by
/// recursing or throwing: truncation, unused type byte 0xc1, non-string map keys (JSON keys are strings),
/// nesting depth, trailing bytes. Returns an empty string when the document is well formed, else the problem
/// with its byte offset. Format: the MessagePack specification (github.com/msgpack/msgpack, spec.md).
[[nodiscard]] inline std::string check_msgpack(std::span<const std::uint8_t> b) {
  struct Frame {
    std::uint64_t left;  // items still to read (a map counts keys and values)
    bool map;
  };
  std::vector<Frame> stack;
  std::size_t pos = 0;
  bool root_done = false;
  auto need = [&](std::uint64_t n) { return n <= b.size() - pos; };
  auto be = [&](std::size_t at, unsigned bytes) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v = (v << 8) | b[at + i];
    return v;
  };
  auto at = [](std::size_t p) { return "at byte " + std::to_string(p) + " (" + to_hex(p) + ")"; };
  while (!root_done) {
    if (pos >= b.size()) return "unexpected end of the msgpack data " + at(pos);
    const bool key = !stack.empty() && stack.back().map && stack.back().left % 2 == 0;
    const std::size_t start = pos;
    const std::uint8_t t = b[pos++];
    std::uint64_t skip = 0;       // payload bytes after the type byte (and length field)
    std::uint64_t children = 0;   // items of a container that starts here
    bool container = false, is_map = false, is_string = false;
    auto len = [&](unsigned bytes) -> bool {
      if (!need(bytes)) return false;
      skip = be(pos, bytes);
      pos += bytes;
      return true;
    };
    if (t <= 0x7f || t >= 0xe0) {
      // positive / negative fixint
    } else if (t <= 0x8f) {
      container = is_map = true, children = std::uint64_t{t & 0x0fu} * 2;
    } else if (t <= 0x9f) {
      container = true, children = t & 0x0fu;
    } else if (t <= 0xbf) {
      is_string = true, skip = t & 0x1fu;
    } else {
      switch (t) {
        case 0xc0: case 0xc2: case 0xc3: break;  // nil, false, true
        case 0xc1: return "msgpack type byte 0xc1 (never used) " + at(start);
        case 0xc4: if (!len(1)) return "truncated bin8 length " + at(start); break;
        case 0xc5: if (!len(2)) return "truncated bin16 length " + at(start); break;
        case 0xc6: if (!len(4)) return "truncated bin32 length " + at(start); break;
        case 0xc7: if (!len(1)) return "truncated ext8 length " + at(start); skip += 1; break;
        case 0xc8: if (!len(2)) return "truncated ext16 length " + at(start); skip += 1; break;
        case 0xc9: if (!len(4)) return "truncated ext32 length " + at(start); skip += 1; break;
        case 0xca: skip = 4; break;
        case 0xcb: skip = 8; break;
        case 0xcc: case 0xd0: skip = 1; break;
        case 0xcd: case 0xd1: skip = 2; break;
        case 0xce: case 0xd2: skip = 4; break;
        case 0xcf: case 0xd3: skip = 8; break;
        case 0xd4: skip = 2; break;
        case 0xd5: skip = 3; break;
        case 0xd6: skip = 5; break;
        case 0xd7: skip = 9; break;
        case 0xd8: skip = 17; break;
        case 0xd9: is_string = true; if (!len(1)) return "truncated str8 length " + at(start); break;
        case 0xda: is_string = true; if (!len(2)) return "truncated str16 length " + at(start); break;
        case 0xdb: is_string = true; if (!len(4)) return "truncated str32 length " + at(start); break;
        case 0xdc: container = true; if (!len(2)) return "truncated array16 length " + at(start); children = skip; skip = 0; break;
        case 0xdd: container = true; if (!len(4)) return "truncated array32 length " + at(start); children = skip; skip = 0; break;
        case 0xde: container = is_map = true; if (!len(2)) return "truncated map16 length " + at(start); children = skip * 2; skip = 0; break;
        case 0xdf: container = is_map = true; if (!len(4)) return "truncated map32 length " + at(start); children = skip * 2; skip = 0; break;
        default: break;
      }
    }
    if (key && !is_string) return "a map key " + at(start) + " is not a string (type byte " + to_hex(t) + ")";
    if (!need(skip)) return "a value " + at(start) + " runs past the end of the msgpack data (" + std::to_string(b.size()) + " bytes)";
    pos += static_cast<std::size_t>(skip);
    if (container && children > 0) {
      if (stack.size() + 1 > max_msgpack_depth)
        return "msgpack nesting deeper than " + std::to_string(max_msgpack_depth) + " levels " + at(start);
      if (!stack.empty()) --stack.back().left;
      stack.push_back(Frame{children, is_map});
      continue;
    }
    // A complete item: count it against its container, and close every container it completes.
    if (stack.empty()) root_done = true;
    else {
      --stack.back().left;
      while (!stack.empty() && stack.back().left == 0) stack.pop_back();
      if (stack.empty()) root_done = true;
    }
  }
  if (pos != b.size())
    return std::to_string(b.size() - pos) + " trailing bytes after the msgpack document, " + at(pos);
  return {};
}

using ::asmevo::pointer_token;

[[nodiscard]] inline std::string json_kind(const MetaJson& v) {
  switch (v.type()) {
    case MetaJson::value_t::null: return "nil";
    case MetaJson::value_t::object: return "a map";
    case MetaJson::value_t::array: return "an array";
    case MetaJson::value_t::string: return "a string";
    case MetaJson::value_t::boolean: return "a boolean";
    case MetaJson::value_t::number_integer: return v.get<std::int64_t>() < 0 ? "a negative integer" : "an integer";
    case MetaJson::value_t::number_unsigned: return "an integer";
    case MetaJson::value_t::number_float: return "a float";
    case MetaJson::value_t::binary: return "binary data";
    default: return "an unknown value";
  }
}

}  // namespace detail

/// The NT_AMDGPU_METADATA note (owner "AMDGPU", type 32; AMDGPUUsage "Code Object V3 and Above Note Records").
/// Exactly one is expected: none, or more than one, is an error.
[[nodiscard]] inline Expected<Note> find_metadata_note(const ElfFile& file) {
  std::optional<Note> found;
  for (auto& n : file.notes()) {
    if (n.name != "AMDGPU" || n.type != elf::nt_amdgpu_metadata) continue;
    if (found)
      return fail(DiagCode::object_error,
                  "two NT_AMDGPU_METADATA notes, at file offsets " + detail::to_hex(found->offset) + " and " +
                      detail::to_hex(n.offset),
                  file.loc());
    found = n;
  }
  if (!found)
    return fail(DiagCode::object_error, "no NT_AMDGPU_METADATA note (owner \"AMDGPU\", type 32) in the code object",
                file.loc(), {}, "code object v4+ kernels describe themselves in that note");
  return *found;
}

/// Decodes a metadata note's msgpack descriptor. `where` prefixes messages ("metadata note at file offset 0x21c");
/// byte offsets in messages count from the descriptor's start.
[[nodiscard]] inline Expected<MetaJson> decode_metadata(std::span<const std::uint8_t> desc, const Loc& loc = {},
                                                        const std::string& where = "metadata") {
  if (auto problem = detail::check_msgpack(desc); !problem.empty())
    return fail(DiagCode::object_error, where + ": invalid msgpack: " + problem, loc);
  try {
    MetaJson doc = MetaJson::from_msgpack(desc.begin(), desc.end());
    // Strings must be UTF-8: JSON text (inspect --json, comparisons) cannot carry anything else, and nlohmann
    // throws when it meets an invalid sequence while printing. Found here, once, as a Diag.
    try {
      (void)doc.dump();
    } catch (const nlohmann::json::type_error& e) {
      return fail(DiagCode::object_error, where + ": a string is not valid UTF-8 (" + std::string(e.what()) + ")", loc);
    }
    return doc;
  } catch (const nlohmann::json::parse_error& e) {
    return fail(DiagCode::object_error,
                where + ": invalid msgpack at byte " + std::to_string(e.byte) + ": " + e.what(), loc);
  } catch (const nlohmann::json::exception& e) {
    return fail(DiagCode::object_error, where + ": invalid msgpack: " + e.what(), loc);
  }
}

/// The code object's metadata document, decoded (key order as stored).
[[nodiscard]] inline Expected<MetaJson> read_metadata(const ElfFile& file) {
  auto note = find_metadata_note(file);
  if (!note) return unexpected(std::move(note).error());
  return decode_metadata(note->desc, file.loc(),
                         "metadata note at file offset " + detail::to_hex(note->offset) + " (descriptor at " +
                             detail::to_hex(note->desc_offset) + ")");
}

/// msgpack bytes of a metadata document (what goes in the note's descriptor). nlohmann writes each integer,
/// string, array and map in its smallest msgpack form and non-negative integers as unsigned, as LLVM's
/// msgpack::Writer does, so decoding LLVM's bytes and encoding them again gives the same bytes.
[[nodiscard]] inline std::vector<std::uint8_t> encode_metadata(const MetaJson& doc) {
  return MetaJson::to_msgpack(doc);
}

/// One kernel argument (AMDGPUUsage "AMDHSA Code Object V3 Kernel Argument Metadata Map").
struct KernelArg {
  std::string name;                          ///< ".name"; empty when absent
  std::string type_name;                     ///< ".type_name"; empty when absent
  std::uint64_t offset = 0;                  ///< ".offset": bytes into the kernarg segment
  std::uint64_t size = 0;                    ///< ".size": bytes
  std::string value_kind;                    ///< ".value_kind": by_value, global_buffer, hidden_*, ...
  std::string value_type;                    ///< ".value_type" (deprecated, still written by some tools); empty when absent
  std::optional<std::uint64_t> pointee_align;///< ".pointee_align"
  std::string address_space;                 ///< ".address_space"; empty when absent
  std::string access;                        ///< ".access"; empty when absent
  std::string actual_access;                 ///< ".actual_access"; empty when absent
  bool is_const = false, is_restrict = false, is_volatile = false, is_pipe = false;
  MetaJson raw;                              ///< the whole map, including keys not modelled here

  /// Filled by the runtime, not the caller: value kinds starting with "hidden_".
  [[nodiscard]] bool is_hidden() const { return value_kind.rfind("hidden_", 0) == 0; }
};

/// One kernel (AMDGPUUsage "AMDHSA Code Object V3 Kernel Metadata Map" and the v4/v5 additions).
struct KernelMeta {
  std::string name;                                       ///< ".name": source-level name
  std::string symbol;                                     ///< ".symbol": kernel descriptor symbol ("k.kd")
  std::string language;                                   ///< ".language"; empty when absent
  std::optional<std::array<std::uint64_t, 2>> language_version;
  std::vector<KernelArg> args;                            ///< ".args" in kernarg order (empty when absent)
  std::uint64_t kernarg_segment_size = 0;                 ///< bytes
  std::uint64_t kernarg_segment_align = 0;                ///< bytes
  std::uint64_t group_segment_fixed_size = 0;             ///< LDS bytes
  std::uint64_t private_segment_fixed_size = 0;           ///< scratch bytes per work-item
  std::uint64_t sgpr_count = 0;
  std::uint64_t vgpr_count = 0;
  std::optional<std::uint64_t> agpr_count;
  std::uint64_t sgpr_spill_count = 0;                     ///< 0 when absent
  std::uint64_t vgpr_spill_count = 0;                     ///< 0 when absent
  std::uint64_t wavefront_size = 0;
  std::uint64_t max_flat_workgroup_size = 0;
  std::optional<std::array<std::uint64_t, 3>> reqd_workgroup_size;
  std::optional<std::array<std::uint64_t, 3>> workgroup_size_hint;
  std::optional<std::array<std::uint64_t, 3>> cluster_dims;
  bool uses_dynamic_stack = false;                        ///< false when absent
  std::optional<std::uint64_t> uniform_work_group_size;
  std::optional<std::uint64_t> workgroup_processor_mode;
  std::string kind;                                       ///< ".kind" (normal/init/fini); empty when absent
  std::string vec_type_hint, device_enqueue_symbol;       ///< empty when absent
  MetaJson raw;                                           ///< the whole map, including keys not modelled here

  /// The arguments a caller passes (not hidden_*), in order.
  [[nodiscard]] std::vector<const KernelArg*> explicit_args() const {
    std::vector<const KernelArg*> v;
    for (const auto& a : args)
      if (!a.is_hidden()) v.push_back(&a);
    return v;
  }
};

namespace detail {

// Enumerated values that LLVM's own metadata verifier accepts (llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp,
// MetadataVerifier::verifyKernelArgs / verifyKernel). LLVM's assembler refuses metadata outside these.
inline constexpr std::string_view value_kinds[] = {
    "by_value", "global_buffer", "dynamic_shared_pointer", "sampler", "image", "pipe", "queue",
    "hidden_block_count_x", "hidden_block_count_y", "hidden_block_count_z", "hidden_group_size_x",
    "hidden_group_size_y", "hidden_group_size_z", "hidden_remainder_x", "hidden_remainder_y", "hidden_remainder_z",
    "hidden_global_offset_x", "hidden_global_offset_y", "hidden_global_offset_z", "hidden_grid_dims",
    "hidden_none", "hidden_printf_buffer", "hidden_hostcall_buffer", "hidden_heap_v1", "hidden_default_queue",
    "hidden_completion_action", "hidden_multigrid_sync_arg", "hidden_dynamic_lds_size", "hidden_private_base",
    "hidden_shared_base", "hidden_queue_ptr"};
inline constexpr std::string_view address_spaces[] = {"private", "global", "constant", "local", "generic", "region"};
inline constexpr std::string_view accesses[] = {"read_only", "write_only", "read_write"};
inline constexpr std::string_view languages[] = {"OpenCL C", "OpenCL C++", "HCC", "HIP", "OpenMP", "Assembler"};

/// Reads typed fields out of metadata maps, gathering every problem with its JSON Pointer.
class MetaChecker {
 public:
  Diags problems;

  void problem(const std::string& ptr, const std::string& what, const MetaJson* v = nullptr, std::string hint = {}) {
    std::string text;
    if (v) text = v->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    problems.push_back(make_diag(DiagCode::object_error, ptr + ": " + what, {}, std::move(text), std::move(hint)));
  }

  /// The value at `key` of map `m`, or nullptr (a problem if `required`).
  const MetaJson* get(const MetaJson& m, std::string_view key, const std::string& ptr, bool required) {
    auto it = m.find(std::string(key));
    if (it == m.end()) {
      if (required) problem(ptr + "/" + pointer_token(key), "required key is missing");
      return nullptr;
    }
    return &*it;
  }

  std::optional<std::uint64_t> uint(const MetaJson& m, std::string_view key, const std::string& ptr, bool required) {
    const MetaJson* v = get(m, key, ptr, required);
    if (!v) return std::nullopt;
    return as_uint(*v, ptr + "/" + pointer_token(key));
  }

  std::optional<std::uint64_t> as_uint(const MetaJson& v, const std::string& ptr) {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
    problem(ptr, "expected an unsigned integer, got " + json_kind(v), &v);
    return std::nullopt;
  }

  std::optional<std::string> str(const MetaJson& m, std::string_view key, const std::string& ptr, bool required,
                                 std::span<const std::string_view> allowed = {}) {
    const MetaJson* v = get(m, key, ptr, required);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      problem(ptr + "/" + pointer_token(key), "expected a string, got " + json_kind(*v), v);
      return std::nullopt;
    }
    std::string s = v->get<std::string>();
    if (!allowed.empty()) {
      bool ok = false;
      std::string list;
      for (auto a : allowed) {
        ok = ok || a == s;
        list += (list.empty() ? "" : ", ") + std::string(a);
      }
      if (!ok) {
        problem(ptr + "/" + pointer_token(key), "unknown value \"" + printable(s) + "\"", v, "one of: " + list);
        return std::nullopt;
      }
    }
    return s;
  }

  std::optional<bool> boolean(const MetaJson& m, std::string_view key, const std::string& ptr) {
    const MetaJson* v = get(m, key, ptr, false);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) {
      problem(ptr + "/" + pointer_token(key), "expected a boolean, got " + json_kind(*v), v);
      return std::nullopt;
    }
    return v->get<bool>();
  }

  template <std::size_t N>
  std::optional<std::array<std::uint64_t, N>> uints(const MetaJson& m, std::string_view key, const std::string& ptr,
                                                    bool required) {
    const MetaJson* v = get(m, key, ptr, required);
    if (!v) return std::nullopt;
    const std::string p = ptr + "/" + pointer_token(key);
    if (!v->is_array() || v->size() != N) {
      problem(p, "expected an array of " + std::to_string(N) + " unsigned integers, got " +
                     (v->is_array() ? "an array of " + std::to_string(v->size()) : json_kind(*v)),
              v);
      return std::nullopt;
    }
    std::array<std::uint64_t, N> out{};
    bool ok = true;
    for (std::size_t i = 0; i < N; ++i) {
      auto x = as_uint((*v)[i], p + "/" + std::to_string(i));
      if (x) out[i] = *x;
      else ok = false;
    }
    if (!ok) return std::nullopt;
    return out;
  }
};

inline KernelArg read_arg(MetaChecker& c, const MetaJson& a, const std::string& ptr) {
  KernelArg r;
  r.raw = a;
  if (!a.is_object()) {
    c.problem(ptr, "expected a map (one kernel argument), got " + json_kind(a), &a);
    return r;
  }
  r.name = c.str(a, ".name", ptr, false).value_or("");
  r.type_name = c.str(a, ".type_name", ptr, false).value_or("");
  r.size = c.uint(a, ".size", ptr, true).value_or(0);
  r.offset = c.uint(a, ".offset", ptr, true).value_or(0);
  r.value_kind = c.str(a, ".value_kind", ptr, true, value_kinds).value_or("");
  r.value_type = c.str(a, ".value_type", ptr, false).value_or("");
  r.pointee_align = c.uint(a, ".pointee_align", ptr, false);
  r.address_space = c.str(a, ".address_space", ptr, false, address_spaces).value_or("");
  r.access = c.str(a, ".access", ptr, false, accesses).value_or("");
  r.actual_access = c.str(a, ".actual_access", ptr, false, accesses).value_or("");
  r.is_const = c.boolean(a, ".is_const", ptr).value_or(false);
  r.is_restrict = c.boolean(a, ".is_restrict", ptr).value_or(false);
  r.is_volatile = c.boolean(a, ".is_volatile", ptr).value_or(false);
  r.is_pipe = c.boolean(a, ".is_pipe", ptr).value_or(false);
  return r;
}

inline KernelMeta read_kernel(MetaChecker& c, const MetaJson& k, const std::string& ptr) {
  KernelMeta r;
  r.raw = k;
  if (!k.is_object()) {
    c.problem(ptr, "expected a map (one kernel), got " + json_kind(k), &k);
    return r;
  }
  r.name = c.str(k, ".name", ptr, true).value_or("");
  r.symbol = c.str(k, ".symbol", ptr, true).value_or("");
  r.language = c.str(k, ".language", ptr, false, languages).value_or("");
  r.language_version = c.uints<2>(k, ".language_version", ptr, false);
  if (const MetaJson* args = c.get(k, ".args", ptr, false)) {
    const std::string p = ptr + "/.args";
    if (!args->is_array()) {
      c.problem(p, "expected an array of kernel arguments, got " + json_kind(*args), args);
    } else {
      for (std::size_t i = 0; i < args->size(); ++i)
        r.args.push_back(read_arg(c, (*args)[i], p + "/" + std::to_string(i)));
    }
  }
  r.kernarg_segment_size = c.uint(k, ".kernarg_segment_size", ptr, true).value_or(0);
  r.kernarg_segment_align = c.uint(k, ".kernarg_segment_align", ptr, true).value_or(0);
  r.group_segment_fixed_size = c.uint(k, ".group_segment_fixed_size", ptr, true).value_or(0);
  r.private_segment_fixed_size = c.uint(k, ".private_segment_fixed_size", ptr, true).value_or(0);
  r.sgpr_count = c.uint(k, ".sgpr_count", ptr, true).value_or(0);
  r.vgpr_count = c.uint(k, ".vgpr_count", ptr, true).value_or(0);
  r.agpr_count = c.uint(k, ".agpr_count", ptr, false);
  r.sgpr_spill_count = c.uint(k, ".sgpr_spill_count", ptr, false).value_or(0);
  r.vgpr_spill_count = c.uint(k, ".vgpr_spill_count", ptr, false).value_or(0);
  r.wavefront_size = c.uint(k, ".wavefront_size", ptr, true).value_or(0);
  r.max_flat_workgroup_size = c.uint(k, ".max_flat_workgroup_size", ptr, true).value_or(0);
  r.reqd_workgroup_size = c.uints<3>(k, ".reqd_workgroup_size", ptr, false);
  r.workgroup_size_hint = c.uints<3>(k, ".workgroup_size_hint", ptr, false);
  r.cluster_dims = c.uints<3>(k, ".cluster_dims", ptr, false);
  r.uses_dynamic_stack = c.boolean(k, ".uses_dynamic_stack", ptr).value_or(false);
  r.uniform_work_group_size = c.uint(k, ".uniform_work_group_size", ptr, false);
  r.workgroup_processor_mode = c.uint(k, ".workgroup_processor_mode", ptr, false);
  r.kind = c.str(k, ".kind", ptr, false).value_or("");
  r.vec_type_hint = c.str(k, ".vec_type_hint", ptr, false).value_or("");
  r.device_enqueue_symbol = c.str(k, ".device_enqueue_symbol", ptr, false).value_or("");
  return r;
}

/// The first problem, its message saying how many more there are; every problem goes to `all` when given.
[[nodiscard]] inline Unexpected first_of(Diags&& problems, Diags* all) {
  Diag d = problems.front();
  if (problems.size() > 1)
    d.message += " (and " + std::to_string(problems.size() - 1) + " more problem" +
                 (problems.size() > 2 ? "s" : "") + " in the metadata)";
  if (all) all->insert(all->end(), problems.begin(), problems.end());
  return unexpected(std::move(d));
}

}  // namespace detail

/// The kernels of a metadata document ("amdhsa.kernels"), typed and checked against the rules LLVM's metadata
/// verifier applies (required keys, types, enumerated values). Every problem is found in one pass: the error is
/// the first, with a JSON Pointer ("/amdhsa.kernels/0/.args/2/.size: expected an unsigned integer, got a
/// string"), and `all_problems`, when given, receives all of them.
[[nodiscard]] inline Expected<std::vector<KernelMeta>> kernels(const MetaJson& doc, Diags* all_problems = nullptr) {
  detail::MetaChecker c;
  std::vector<KernelMeta> out;
  if (!doc.is_object()) {
    c.problem("", "expected the metadata to be a map, got " + detail::json_kind(doc), &doc);
    return detail::first_of(std::move(c.problems), all_problems);
  }
  if (const MetaJson* ks = c.get(doc, "amdhsa.kernels", "", true)) {
    if (!ks->is_array()) {
      c.problem("/amdhsa.kernels", "expected an array of kernels, got " + detail::json_kind(*ks), ks);
    } else {
      for (std::size_t i = 0; i < ks->size(); ++i)
        out.push_back(detail::read_kernel(c, (*ks)[i], "/amdhsa.kernels/" + std::to_string(i)));
    }
  }
  if (!c.problems.empty()) return detail::first_of(std::move(c.problems), all_problems);
  return out;
}

/// "amdhsa.version": [major, minor] (1.1 for code object v4, 1.2 for v5, 1.3 for v6).
[[nodiscard]] inline Expected<std::array<std::uint64_t, 2>> hsa_version(const MetaJson& doc) {
  detail::MetaChecker c;
  std::optional<std::array<std::uint64_t, 2>> v;
  if (!doc.is_object()) c.problem("", "expected the metadata to be a map, got " + detail::json_kind(doc), &doc);
  else v = c.uints<2>(doc, "amdhsa.version", "", true);
  if (!c.problems.empty()) return detail::first_of(std::move(c.problems), nullptr);
  return *v;
}

/// "amdhsa.target" ("amdgcn-amd-amdhsa--gfx942"), or nullopt when absent or not a string (it is optional in
/// code object v4; LLVM writes it for v4 and later, hand-written metadata often leaves it out).
[[nodiscard]] inline std::optional<std::string> hsa_target(const MetaJson& doc) {
  if (!doc.is_object()) return std::nullopt;
  auto it = doc.find("amdhsa.target");
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

namespace detail {

/// True when LLVM's untagged YAML scalar typing (msgpack::DocNode::fromString in
/// llvm/lib/BinaryFormat/MsgPackDocumentYAML.cpp: unsigned int, signed int, "true"/"false", double, then
/// string) would not give back a string for `s`, so the YAML must tag it `!str`. Errs on the side of tagging.
[[nodiscard]] inline bool yaml_string_needs_tag(const std::string& s) {
  if (s.empty() || s == "true" || s == "false") return true;  // "" reads as the double 0.0
  // Integers with LLVM's auto-sensed radix (getAsUnsignedInteger radix 0: 0x, 0b, 0o, leading 0).
  std::string_view v = s;
  if (!v.empty() && v[0] == '-') v.remove_prefix(1);
  if (!v.empty() && v.size() >= 2 && v[0] == '0' &&
      (v[1] == 'x' || v[1] == 'X' || v[1] == 'b' || v[1] == 'B' || v[1] == 'o' || v[1] == 'O'))
    return true;
  // Anything else that starts like a number: LLVM's reader does not always fall back to a string when the rest
  // is not a number ("09.kd" fails as an invalid octal number; found by tests/codeobject/properties_test.cpp).
  if (!v.empty() && v[0] >= '0' && v[0] <= '9') return true;
  // strtod accepts what LLVM's to_float accepts (decimal, hex floats, inf, nan, leading spaces); the integer forms
  // above that strtod does not read (0b.., 0o..) were caught already.
  char* end = nullptr;
  (void)std::strtod(s.c_str(), &end);
  if (end != s.c_str() && *end == '\0') return true;
  if (end == s.c_str() && s.find_first_not_of(" \t") == std::string::npos) return true;
  return false;
}

/// A string LLVM's YAML reader takes as written without quotes: letters, digits and . _ / + - (not first), single
/// inner spaces. Anything else is double-quoted (which also keeps ';' and '#' away from the assembler's lexer).
[[nodiscard]] inline bool yaml_plain_safe(const std::string& s) {
  if (s.empty()) return false;
  auto ok_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '/' || c == '+' || c == '-' || c == ' ';
  };
  const char f = s.front();
  if (!((f >= 'a' && f <= 'z') || (f >= 'A' && f <= 'Z') || (f >= '0' && f <= '9') || f == '.' || f == '_' || f == '/'))
    return false;
  if (s.back() == ' ') return false;
  // The assembler's lexer reads the block before LLVM's YAML reader does (AMDGPUAsmParser collects it token by
  // token), and it rejects malformed numbers: a token that starts with a digit, or with '.' then a digit ("09.kd",
  // ".1-"), must be quoted (found by tests/codeobject/properties_test.cpp).
  const auto ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!ok_char(s[i])) return false;
    if (s[i] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') return false;
    const bool token_start = i == 0 || !ident(s[i - 1]);
    if (token_start && ((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9')))
      return false;
  }
  // YAML 1.1 / LLVM YAMLParser specials that a plain scalar must not be.
  static constexpr std::string_view special[] = {"null", "Null", "NULL", "~", "...", "---"};
  for (auto sp : special)
    if (s == sp) return false;
  return true;
}

inline void yaml_quoted(std::string& out, const std::string& s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += "0123456789abcdef"[c >> 4];
          out += "0123456789abcdef"[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

inline void yaml_string(std::string& out, const std::string& s) {
  if (yaml_string_needs_tag(s)) out += "!str ";
  if (yaml_plain_safe(s) && !yaml_string_needs_tag(s)) out += s;
  else yaml_quoted(out, s);
}

inline void yaml_scalar(std::string& out, const MetaJson& v) {
  switch (v.type()) {
    case MetaJson::value_t::null: out += "!nil \"\""; break;
    case MetaJson::value_t::boolean: out += v.get<bool>() ? "true" : "false"; break;
    case MetaJson::value_t::number_unsigned: out += std::to_string(v.get<std::uint64_t>()); break;
    case MetaJson::value_t::number_integer: out += std::to_string(v.get<std::int64_t>()); break;
    case MetaJson::value_t::number_float: {
      // Tagged, so "1" stays a float; 17 significant digits round-trip a double. (LLVM's msgpack writer then
      // stores any double within float range as a float32: see encode note in to_yaml's comment.)
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v.get<double>());
      out += "!float ";
      out += buf;
      break;
    }
    case MetaJson::value_t::string: yaml_string(out, v.get_ref<const std::string&>()); break;
    case MetaJson::value_t::binary: {
      // LLVM's YAML has no binary form; the bytes become a string (the type changes, the bytes do not).
      const auto& b = v.get_binary();
      yaml_string(out, std::string(b.begin(), b.end()));
      break;
    }
    case MetaJson::value_t::object: out += "{}"; break;  // only reached for empty containers
    case MetaJson::value_t::array: out += "[]"; break;
    default: out += "!nil \"\""; break;
  }
}

inline void yaml_seq(std::string& out, const MetaJson& a, std::size_t indent, bool first_inline);

/// A map at column `indent`; the first key continues the current line when `first_inline` (after "- ").
inline void yaml_map(std::string& out, const MetaJson& m, std::size_t indent, bool first_inline) {
  bool first = true;
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!(first && first_inline)) out.append(indent, ' ');
    first = false;
    const std::string& key = it.key();
    if (yaml_plain_safe(key)) out += key;
    else yaml_quoted(out, key);
    out += ':';
    const MetaJson& v = it.value();
    if (v.is_object() && !v.empty()) {
      out += '\n';
      yaml_map(out, v, indent + 2, false);
    } else if (v.is_array() && !v.empty()) {
      out += '\n';
      yaml_seq(out, v, indent + 2, false);
    } else {
      out += ' ';
      yaml_scalar(out, v);
      out += '\n';
    }
  }
}

inline void yaml_seq(std::string& out, const MetaJson& a, std::size_t indent, bool first_inline) {
  bool first = true;
  for (const auto& v : a) {
    if (!(first && first_inline)) out.append(indent, ' ');
    first = false;
    out += "- ";
    if (v.is_object() && !v.empty()) yaml_map(out, v, indent + 2, true);
    else if (v.is_array() && !v.empty()) yaml_seq(out, v, indent + 2, true);
    else {
      yaml_scalar(out, v);
      out += '\n';
    }
  }
}

}  // namespace detail

/// The YAML text of a metadata document, "---" to "...", as it goes between `.amdgpu_metadata` and
/// `.end_amdgpu_metadata`, such that LLVM's assembler (llvm-mc 22) builds the same msgpack document from it.
/// Block style, as llvm-readelf prints it; scalars are typed the way LLVM's YAML reader types them
/// (msgpack::DocNode::fromString): a string that would read as a number, boolean or float gets a `!str` tag,
/// floats get `!float`, nil is `!nil`. Limits that come from LLVM's YAML form itself: map keys are always read
/// as untagged scalars (a key such as "1" comes back as an integer); binary values have no YAML form (they are
/// written as strings); LLVM stores a double that lies within float range as a float32, so a float that is not
/// exactly representable as a float32 changes value (AMDGPU metadata has no floats). LLVM also sorts map keys,
/// as LLVM-produced metadata already is.
[[nodiscard]] inline std::string to_yaml(const MetaJson& doc) {
  std::string out = "---\n";
  if (doc.is_object() && !doc.empty()) detail::yaml_map(out, doc, 0, false);
  else if (doc.is_array() && !doc.empty()) detail::yaml_seq(out, doc, 0, false);
  else {
    detail::yaml_scalar(out, doc);
    out += '\n';
  }
  out += "...\n";
  return out;
}

}  // namespace asmevo::codeobject
