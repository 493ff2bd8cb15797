// Tests of mc::Context::assemble_object and codeobject::link_shared against llvm-mc-22 + ld.lld-22 run as processes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "asmevo/codeobject/link.hpp"
#include "asmevo/mc/llvm_mc.hpp"
#include "support/corpus.hpp"

namespace {

namespace fs = std::filesystem;
using asmevo::DiagCode;

const char* const kernel_text = R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	k
	.p2align	8
	.type	k,@function
k:
	s_load_dwordx2 s[0:1], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v0, 0
	global_store_dword v0, v0, s[0:1]
	s_endpgm
.Lk_end:
	.size	k, .Lk_end-k
	.rodata
	.p2align	6
	.amdhsa_kernel k
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 8
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 2
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name:           k
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         k.kd
    .vgpr_count:     1
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
)";

std::string slurp_bin(const fs::path& p) { return asmevo::test::slurp(p); }

struct Tmp {
  fs::path dir;
  Tmp() {
    std::string pat = (fs::temp_directory_path() / "asmevo-link-test-XXXXXX").string();
    dir = ::mkdtemp(pat.data());
  }
  ~Tmp() { std::error_code ec; fs::remove_all(dir, ec); }
};

TEST(AssembleObject, SameBytesAsLlvmMcProcess) {
  auto ctx = asmevo::mc::Context::create("gfx942");
  ASSERT_TRUE(ctx) << ctx.error().str();
  auto obj = (*ctx)->assemble_object(kernel_text, "k.s");
  ASSERT_TRUE(obj) << obj.error().str();
  Tmp t;
  { std::ofstream(t.dir / "k.s") << kernel_text; }
  const std::string cmd = std::string(ASMEVO_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj " +
                          (t.dir / "k.s").string() + " -o " + (t.dir / "k.o").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string want = slurp_bin(t.dir / "k.o");
  ASSERT_EQ(obj->size(), want.size());
  EXPECT_TRUE(std::equal(obj->begin(), obj->end(), reinterpret_cast<const std::uint8_t*>(want.data())))
      << "the in-process object differs from llvm-mc-22's";

  // Linking the in-process object gives the same code object as ld.lld-22 on llvm-mc-22's object.
  auto co = asmevo::codeobject::link_shared(*obj);
  ASSERT_TRUE(co) << co.error().str();
  const std::string link = std::string(ASMEVO_LLD) + " -m elf64_amdgpu --no-undefined -shared -o " +
                           (t.dir / "k.co").string() + " " + (t.dir / "k.o").string();
  ASSERT_EQ(std::system(link.c_str()), 0) << link;
  const std::string want_co = slurp_bin(t.dir / "k.co");
  ASSERT_EQ(co->size(), want_co.size());
  EXPECT_TRUE(std::equal(co->begin(), co->end(), reinterpret_cast<const std::uint8_t*>(want_co.data())));
}

TEST(AssembleObject, ErrorsNameTheLine) {
  auto ctx = asmevo::mc::Context::create("gfx942");
  ASSERT_TRUE(ctx);
  auto obj = (*ctx)->assemble_object("\t.text\nk:\n\tv_add_f32 v0, v1\n\ts_endpgm\n", "bad.s");
  ASSERT_FALSE(obj);
  EXPECT_EQ(obj.error().code, DiagCode::encode_error);
  EXPECT_EQ(obj.error().loc.file, "bad.s");
  EXPECT_EQ(obj.error().loc.line, 3u);
  // A descriptor without its required fields is refused by LLVM's .amdhsa_kernel parser, with its message.
  auto kd = (*ctx)->assemble_object("\t.amdhsa_code_object_version 5\n\t.rodata\n\t.amdhsa_kernel k\n\t.end_amdhsa_kernel\n", "kd.s");
  ASSERT_FALSE(kd);
  EXPECT_NE(kd.error().message.find(".amdhsa_next_free_vgpr"), std::string::npos) << kd.error().str();
}

TEST(LinkShared, LinkerErrorsAreReported) {
  auto ctx = asmevo::mc::Context::create("gfx942");
  ASSERT_TRUE(ctx);
  // An undefined symbol is an error with --no-undefined; the message carries lld's own text.
  auto obj = (*ctx)->assemble_object("\t.text\n\t.globl k\nk:\n\ts_getpc_b64 s[0:1]\n\ts_add_u32 s0, s0, nowhere@rel32@lo+4\n\ts_endpgm\n");
  ASSERT_TRUE(obj) << obj.error().str();
  auto co = asmevo::codeobject::link_shared(*obj);
  ASSERT_FALSE(co);
  EXPECT_NE(co.error().text.find("nowhere"), std::string::npos) << co.error().str();
}

TEST(LinkShared, MissingLinkerIsAUsageError) {
  ::setenv("ASMEVO_LLD", "/nonexistent/ld.lld", 1);
  auto lld = asmevo::codeobject::find_lld();
  ::unsetenv("ASMEVO_LLD");
  ASSERT_FALSE(lld);
  EXPECT_EQ(lld.error().code, DiagCode::usage);
}

}  // namespace
