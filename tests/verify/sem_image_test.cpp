// Tests of the emulator's formatted memory semantics (sem_image.hpp): texel format conversions against host IEEE
// arithmetic and hand-derived values of the conversion rules, gfx90a image_load/image_store on linear images with
// hand-built T# descriptors (addresses against the linear-layout formula, out-of-range lanes, dst_sel and dmask),
// buffer_load/store_format_xyzw with hand-built V# descriptors, and clean stops for what is not modelled.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "asmevo/emu/sem_image.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;

using test::run_body;

std::uint32_t fbits(float f) { return std::bit_cast<std::uint32_t>(f); }
float ffrom(std::uint32_t b) { return std::bit_cast<float>(b); }

// dst_sel codes (ROCR resource_ai.h enum SEL): 0, 1, X=4, Y=5, Z=6, W=7; X in bits 2:0 ... W in 11:9.
constexpr unsigned sel(unsigned x, unsigned y, unsigned z, unsigned w) { return x | y << 3 | z << 6 | w << 9; }
constexpr unsigned kIdentity = sel(4, 5, 6, 7);

// Image types (SQ_RSRC_IMG_*), data formats (FMT_*), number formats (TYPE_*) as ROCR's resource_ai.h lists them.
constexpr unsigned k1D = 8, k2D = 9, k3D = 10, k1DArray = 12, k2DArray = 13;
constexpr unsigned kFmt8 = 1, kFmt16 = 2, kFmt32 = 4, kFmt16_16 = 5, kFmt8888 = 10, kFmt16x4 = 12, kFmt32x4 = 14;
constexpr unsigned kUnorm = 0, kSnorm = 1, kUint = 4, kSint = 5, kFloat = 7;

/// A T# (SQ_IMG_RSRC_WORD0..7 of gfx9, field by field as ROCR's PopulateImageSrd fills them).
struct TDesc {
  std::uint64_t base = 0;
  unsigned data_format = kFmt8888, num_format = kUint;
  unsigned width = 1, height = 1, depth = 1, pitch = 1;  // depth: 3D depth or array slices
  unsigned dst_sel = kIdentity, sw_mode = 0, type = k2D;
  [[nodiscard]] std::array<std::uint32_t, 8> words() const {
    std::array<std::uint32_t, 8> r{};
    r[0] = static_cast<std::uint32_t>(base >> 8);
    r[1] = static_cast<std::uint32_t>((base >> 40) & 0xff) | data_format << 20 | num_format << 26;
    r[2] = (width - 1) | (height - 1) << 14;
    r[3] = dst_sel | sw_mode << 20 | type << 28;
    r[4] = (depth - 1) | (pitch - 1) << 13;
    return r;
  }
};
void put_tsharp(Wave& w, unsigned sgpr, const TDesc& t) {
  const auto r = t.words();
  for (unsigned i = 0; i < 8; ++i) w.s[sgpr + i] = r[i];
}
/// A V# (SQ_BUF_RSRC_WORD0..3).
void put_vsharp(Wave& w, unsigned sgpr, std::uint64_t base, unsigned stride, unsigned num_records, unsigned dst_sel,
                unsigned num_format, unsigned data_format) {
  w.s[sgpr] = static_cast<std::uint32_t>(base);
  w.s[sgpr + 1] = static_cast<std::uint32_t>((base >> 32) & 0xffff) | stride << 16;
  w.s[sgpr + 2] = num_records;
  w.s[sgpr + 3] = dst_sel | num_format << 12 | data_format << 15;
}

/// A region of bytes with no short period (a multiplicative hash of the offset), so that an access at a wrong
/// address reads a different value (an affine byte pattern repeats every 256 bytes and hides such errors).
Region& patterned(test::Snippet& s, const char* name, std::size_t size) {
  Region& r = s.machine.memory.region(s.machine.memory.map(name, size, true));
  for (std::size_t i = 0; i < size; ++i)
    r.bytes[i] = static_cast<std::byte>((static_cast<std::uint32_t>(i + 1) * 0x9e3779b1u) >> 24);
  return r;
}
std::uint8_t byte_at(const Region& r, std::size_t i) { return static_cast<std::uint8_t>(r.bytes[i]); }
std::uint32_t le32(const Region& r, std::size_t at) {
  std::uint32_t x;
  std::memcpy(&x, r.bytes.data() + at, 4);
  return x;
}
std::uint16_t le16(const Region& r, std::size_t at) {
  std::uint16_t x;
  std::memcpy(&x, r.bytes.data() + at, 2);
  return x;
}

// ---- conversions ----------------------------------------------------------------------------------------------

TEST(TexelConversion, UnormAndSnormLoadsMatchHostDivision) {
  // One IEEE f32 division of exact operands is correctly rounded, as the emulator's quotient is meant to be.
  for (std::uint32_t u = 0; u < 256; ++u)
    EXPECT_EQ(texel_to_reg(u, 8, numfmt::unorm), fbits(static_cast<float>(u) / 255.0f)) << u;
  for (std::uint32_t u = 0; u < 65536; u += 7)
    EXPECT_EQ(texel_to_reg(u, 16, numfmt::unorm), fbits(static_cast<float>(u) / 65535.0f)) << u;
  for (std::uint32_t u = 0; u < 256; ++u) {
    const auto s = static_cast<std::int8_t>(u);
    const float want = s == -128 ? -1.0f : static_cast<float>(s) / 127.0f;  // the most negative code reads as -1
    EXPECT_EQ(texel_to_reg(u, 8, numfmt::snorm), fbits(want)) << static_cast<int>(s);
  }
  EXPECT_EQ(texel_to_reg(0x8000, 16, numfmt::snorm), fbits(-1.0f));
  EXPECT_EQ(texel_to_reg(0x7fff, 16, numfmt::snorm), fbits(1.0f));
}

TEST(TexelConversion, IntegerAndFloatLoads) {
  EXPECT_EQ(texel_to_reg(0xff, 8, numfmt::uint), 255u);
  EXPECT_EQ(texel_to_reg(0xff, 8, numfmt::sint), 0xffffffffu);
  EXPECT_EQ(texel_to_reg(0x8000, 16, numfmt::sint), 0xffff8000u);
  EXPECT_EQ(texel_to_reg(0x8000, 16, numfmt::uint), 0x8000u);
  EXPECT_EQ(texel_to_reg(200, 8, numfmt::uscaled), fbits(200.0f));
  EXPECT_EQ(texel_to_reg(0x80, 8, numfmt::sscaled), fbits(-128.0f));
  // f16 -> f32 by hand: 0x3c00 = 1.0, 0xc000 = -2.0, 0x0001 = 2^-24 (denormal kept), 0x7c00 = +inf.
  EXPECT_EQ(texel_to_reg(0x3c00, 16, numfmt::float_), fbits(1.0f));
  EXPECT_EQ(texel_to_reg(0xc000, 16, numfmt::float_), fbits(-2.0f));
  EXPECT_EQ(texel_to_reg(0x0001, 16, numfmt::float_), fbits(0x1p-24f));
  EXPECT_EQ(texel_to_reg(0x7c00, 16, numfmt::float_), fbits(INFINITY));
  // 32-bit data is not converted, whatever the number format.
  for (unsigned nf : {numfmt::uint, numfmt::sint, numfmt::float_}) EXPECT_EQ(texel_to_reg(0xdeadbeef, 32, nf), 0xdeadbeefu);
}

TEST(TexelConversion, StoresFollowTheClampScaleRoundRule) {
  struct Case { float f; unsigned bits, nf; std::uint32_t want; };
  // Hand-derived: clamp to [0,1] / [-1,1] (NaN -> 0), scale by 2^n-1 / 2^(n-1)-1, round half to even.
  const Case cases[] = {
      {0.5f, 8, numfmt::unorm, 128},            // 127.5 -> 128 (even)
      {1.0f / 255.0f, 8, numfmt::unorm, 1},
      {-0.1f, 8, numfmt::unorm, 0},
      {2.0f, 8, numfmt::unorm, 255},
      {NAN, 8, numfmt::unorm, 0},
      {0.5f, 16, numfmt::unorm, 32768},         // 32767.5 -> 32768 (even)
      {-1.0f, 8, numfmt::snorm, 0x81},          // -127
      {-5.0f, 8, numfmt::snorm, 0x81},          // clamped to -1
      {0.5f, 8, numfmt::snorm, 64},             // 63.5 -> 64 (even)
      {-0.5f, 16, numfmt::snorm, 0xc000},       // -16383.5 -> -16384 (even)
      {1.0f, 16, numfmt::float_, 0x3c00},
      {65520.0f, 16, numfmt::float_, 0x7c00},   // rounds to +inf
  };
  for (const auto& c : cases) {
    std::uint32_t out = 0xdead;
    ASSERT_TRUE(reg_to_texel(fbits(c.f), c.bits, c.nf, out)) << c.f;
    EXPECT_EQ(out, c.want) << c.f << " bits " << c.bits << " nf " << c.nf;
  }
  std::uint32_t out = 0;
  EXPECT_TRUE(reg_to_texel(255, 8, numfmt::uint, out));
  EXPECT_EQ(out, 255u);
  EXPECT_FALSE(reg_to_texel(256, 8, numfmt::uint, out));
  EXPECT_TRUE(reg_to_texel(static_cast<std::uint32_t>(-128), 8, numfmt::sint, out));
  EXPECT_EQ(out, 0x80u);
  EXPECT_FALSE(reg_to_texel(static_cast<std::uint32_t>(-129), 8, numfmt::sint, out));
  EXPECT_FALSE(reg_to_texel(fbits(3.0f), 8, numfmt::uscaled, out));
}

TEST(TexelConversion, UnormRoundTripsEveryCode) {
  // Loading a code and storing the result gives the code back (a property the D3D rules guarantee).
  for (std::uint32_t u = 0; u < 256; ++u) {
    std::uint32_t back = 0;
    ASSERT_TRUE(reg_to_texel(texel_to_reg(u, 8, numfmt::unorm), 8, numfmt::unorm, back));
    EXPECT_EQ(back, u);
    ASSERT_TRUE(reg_to_texel(texel_to_reg(u, 8, numfmt::snorm), 8, numfmt::snorm, back));
    EXPECT_EQ(back, u == 0x80 ? 0x81u : u);  // -128 reads as -1.0, which stores as -127
  }
}

TEST(TexelConversion, FormatTable) {
  EXPECT_EQ(texel_format(kFmt8888, kUnorm).bytes(), 4u);
  EXPECT_EQ(texel_format(kFmt32x4, kFloat).bytes(), 16u);
  EXPECT_EQ(texel_format(13, kUint).comps, 3);
  EXPECT_EQ(texel_format(kFmt8, kFloat).comps, 0);   // no 8-bit float
  EXPECT_EQ(texel_format(kFmt32, kUnorm).comps, 0);  // no 32-bit unorm
  EXPECT_EQ(texel_format(16, kUnorm).comps, 0);      // 5_6_5: packed, not modelled
  EXPECT_EQ(texel_format(kFmt8888, 9).comps, 0);     // srgb
}

// ---- image_load / image_store -----------------------------------------------------------------------------------

TEST(ImageLoad, Rgba8Uint2DWithPitchAndOutOfRangeLanes) {
  auto s = test::make_snippet("image_load v[4:7], v0, s[8:15] dmask:0xf unorm", Target::gfx90a);
  ASSERT_TRUE(s);
  Region& img = patterned(*s, "img", 64 * 1024);
  Wave& w = s->wave();
  TDesc t;
  t.base = img.base;
  t.width = 13;
  t.height = 9;
  t.pitch = 64;  // elements per row, past the width
  put_tsharp(w, 8, t);
  for (unsigned l = 0; l < 64; ++l) {
    w.v[0][l] = (l * 5) % 16;  // x: 13..15 out of range
    w.v[1][l] = (l * 3) % 11;  // y: 9, 10 out of range
    w.v[4][l] = 0xcafe;        // must be overwritten, also for out-of-range lanes
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned x = (l * 5) % 16, y = (l * 3) % 11;
    const bool in = x < 13 && y < 9;
    const std::size_t at = (static_cast<std::size_t>(y) * 64 + x) * 4;
    for (unsigned c = 0; c < 4; ++c)
      EXPECT_EQ(w.v[4 + c][l], in ? byte_at(img, at + c) : 0u) << "lane " << l << " comp " << c;
  }
}

TEST(ImageLoad, ArraysAnd3DUseTheSliceStrideOfTheLinearLayout) {
  struct Case { unsigned type; const char* da; unsigned ncoord; };
  const Case cases[] = {{k1D, "", 1}, {k2D, "", 2}, {k3D, "", 3}, {k1DArray, " da", 2}, {k2DArray, " da", 3}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type);
    auto s = test::make_snippet(std::string("image_load v[8:11], v0, s[8:15] dmask:0xf unorm") + c.da, Target::gfx90a);
    ASSERT_TRUE(s);
    Region& img = patterned(*s, "img", 256 * 1024);
    Wave& w = s->wave();
    TDesc t;
    t.base = img.base;
    t.data_format = kFmt32;
    t.num_format = kUint;
    t.width = 7;
    t.height = 5;
    t.depth = 4;
    t.pitch = 16;
    t.type = c.type;
    t.dst_sel = sel(4, 0, 0, 1);  // an R image as ROCR describes it: (X, 0, 0, 1)
    put_tsharp(w, 8, t);
    for (unsigned l = 0; l < 64; ++l) {
      w.v[0][l] = l % 8;        // x (7 out of range)
      w.v[1][l] = (l / 8) % 6;  // y or slice
      w.v[2][l] = l / 16;       // z or slice
    }
    ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
    for (unsigned l = 0; l < 64; ++l) {
      // Coordinates in VGPR order: x; x,y; x,y,z; x,slice; x,y,slice.
      const unsigned x = l % 8;
      unsigned y = 0, z = 0;
      bool in = x < 7;
      if (c.type == k2D || c.type == k3D || c.type == k2DArray) { y = (l / 8) % 6; in = in && y < 5; }
      if (c.type == k3D || c.type == k2DArray) { z = l / 16; in = in && z < 4; }
      if (c.type == k1DArray) { z = (l / 8) % 6; in = in && z < 4; }
      const std::size_t rows = c.type == k1DArray ? 1 : 5;  // a 1D slice is one row (AddrLib linear layout)
      const std::size_t at = ((z * rows + y) * 16 + x) * 4;
      EXPECT_EQ(w.v[8][l], in ? le32(img, at) : 0u) << "lane " << l;
      EXPECT_EQ(w.v[9][l], 0u);
      EXPECT_EQ(w.v[10][l], 0u);
      EXPECT_EQ(w.v[11][l], 1u) << "SEL_1 is integer 1 for uint, also out of range; lane " << l;
    }
  }
}

TEST(ImageLoad, DstSelAndDmaskPackTheSelectedComponents) {
  // RGBA16 unorm read through a BGRA-style swizzle (Z, Y, X, W) with dmask 0b1010: returns Y then W.
  auto s = test::make_snippet("image_load v[2:3], v0, s[0:7] dmask:0xa unorm", Target::gfx90a);
  ASSERT_TRUE(s);
  Region& img = patterned(*s, "img", 4096);
  Wave& w = s->wave();
  TDesc t;
  t.base = img.base;
  t.data_format = kFmt16x4;
  t.num_format = kUnorm;
  t.width = 64;
  t.pitch = 64;
  t.type = k1D;
  t.dst_sel = sel(6, 5, 4, 7);
  put_tsharp(w, 0, t);
  for (unsigned l = 0; l < 64; ++l) w.v[0][l] = l;
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const float y = static_cast<float>(le16(img, l * 8 + 2)) / 65535.0f;
    const float a = static_cast<float>(le16(img, l * 8 + 6)) / 65535.0f;
    EXPECT_EQ(w.v[2][l], fbits(y)) << l;
    EXPECT_EQ(w.v[3][l], fbits(a)) << l;
  }
}

TEST(ImageStore, Rgba16UnormConvertsAndSkipsOutOfRangeLanesAndInactiveLanes) {
  auto s = test::make_snippet("image_store v[4:7], v[0:1], s[8:15] dmask:0xf unorm", Target::gfx90a);
  ASSERT_TRUE(s);
  Region& img = s->machine.memory.region(s->machine.memory.map("img", 8192, true));
  for (auto& b : img.bytes) b = std::byte{0x5a};
  Wave& w = s->wave();
  TDesc t;
  t.base = img.base;
  t.data_format = kFmt16x4;
  t.num_format = kUnorm;
  t.width = 10;
  t.height = 8;
  t.pitch = 12;
  put_tsharp(w, 8, t);
  const float vals[4] = {0.25f, -3.0f, 1.0f, 0.5f};
  for (unsigned l = 0; l < 64; ++l) {
    w.v[0][l] = l % 11;  // x = 10 out of range
    w.v[1][l] = l / 8;
    for (unsigned c = 0; c < 4; ++c) w.v[4 + c][l] = fbits(vals[c] + static_cast<float>(l) / 1024.0f);
  }
  w.set_exec(~0ull & ~(1ull << 3));  // lane 3 inactive
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  std::vector<int> writer(8 * 12, -1);
  for (unsigned l = 0; l < 64; ++l)
    if (l != 3 && l % 11 < 10) writer[(l / 8) * 12 + l % 11] = static_cast<int>(l);  // the highest lane wins
  for (unsigned e = 0; e < writer.size(); ++e) {
    for (unsigned c = 0; c < 4; ++c) {
      const std::uint16_t got = le16(img, e * 8 + 2 * c);
      if (writer[e] < 0) { EXPECT_EQ(got, 0x5a5a) << "element " << e; continue; }
      float f = vals[c] + static_cast<float>(writer[e]) / 1024.0f;
      f = f < 0 ? 0 : (f > 1 ? 1 : f);
      const double scaled = static_cast<double>(f) * 65535.0;  // round half to even, by hand
      double r = std::floor(scaled);
      if (scaled - r > 0.5 || (scaled - r == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
      EXPECT_EQ(got, static_cast<std::uint16_t>(r)) << "element " << e << " comp " << c;
    }
  }
  // Nothing past the last row (y = 7) of the image was written.
  for (std::size_t i = 8 * 12 * 8; i < img.bytes.size(); ++i) ASSERT_EQ(byte_at(img, i), 0x5a) << i;
}

TEST(ImageStore, CopyThroughUintImagesIsExact) {
  // What the blit copy kernels do: read a uint image, write another (different pitch, 2D array).
  auto s = test::make_snippet("image_load v[4:7], v[0:2], s[0:7] dmask:0xf unorm da\n"
                              "s_waitcnt vmcnt(0)\n"
                              "image_store v[4:7], v[0:2], s[8:15] dmask:0xf unorm da",
                              Target::gfx90a);
  ASSERT_TRUE(s);
  Region& src = patterned(*s, "src", 16384);
  Region& dst = s->machine.memory.region(s->machine.memory.map("dst", 16384, true));
  Wave& w = s->wave();
  TDesc a;
  a.base = src.base;
  a.data_format = kFmt8888;
  a.width = 4;
  a.height = 4;
  a.depth = 4;
  a.pitch = 8;
  a.type = k2DArray;
  TDesc b = a;
  b.base = dst.base;
  b.pitch = 4;
  put_tsharp(w, 0, a);
  put_tsharp(w, 8, b);
  for (unsigned l = 0; l < 64; ++l) {
    w.v[0][l] = l % 4;
    w.v[1][l] = (l / 4) % 4;
    w.v[2][l] = l / 16;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned z = 0; z < 4; ++z)
    for (unsigned y = 0; y < 4; ++y)
      for (unsigned x = 0; x < 4; ++x)
        EXPECT_EQ(le32(dst, ((z * 4 + y) * 4 + x) * 4), le32(src, ((z * 4 + y) * 8 + x) * 4)) << x << y << z;
}

TEST(ImageStop, UnsupportedCasesStopWithAMessage) {
  struct Case { const char* text; unsigned sw_mode, type, df, nf, dst_sel; std::uint32_t data; const char* expect; };
  const Case cases[] = {
      {"image_load v[4:7], v0, s[8:15] dmask:0xf unorm", 9, k2D, kFmt8888, kUint, kIdentity, 0, "linear"},
      {"image_load v[4:7], v0, s[8:15] dmask:0xf unorm da", 0, k2D, kFmt8888, kUint, kIdentity, 0, "da"},
      {"image_load v[4:7], v0, s[8:15] dmask:0xf unorm", 0, 11, kFmt8888, kUint, kIdentity, 0, "type 11"},
      {"image_load v[4:7], v0, s[8:15] dmask:0xf unorm", 0, k2D, 16, kUnorm, kIdentity, 0, "format"},
      {"image_load v[4:7], v0, s[8:15] dmask:0xf", 0, k2D, kFmt8888, kUint, kIdentity, 0, "unorm"},
      {"image_store v[4:7], v0, s[8:15] dmask:0xf unorm", 0, k2D, kFmt8888, kUint, kIdentity, 300, "clamp or truncate"},
      {"image_store v[4:7], v0, s[8:15] dmask:0xf unorm", 0, k2D, kFmt8888, kUint, sel(6, 5, 4, 7), 1, "dst_sel"},
      {"image_store v4, v0, s[8:15] dmask:0x1 unorm", 0, k2D, kFmt16_16, kUint, kIdentity, 1, "dmask"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto s = test::make_snippet(c.text, Target::gfx90a);
    ASSERT_TRUE(s);
    Region& img = s->machine.memory.region(s->machine.memory.map("img", 4096, true));
    Wave& w = s->wave();
    TDesc t;
    t.base = img.base;
    t.sw_mode = c.sw_mode;
    t.type = c.type;
    t.data_format = c.df;
    t.num_format = c.nf;
    t.dst_sel = c.dst_sel;
    t.width = t.height = 4;
    t.pitch = 4;
    put_tsharp(w, 8, t);
    for (unsigned r = 4; r < 8; ++r)
      for (unsigned l = 0; l < 64; ++l) w.v[r][l] = c.data;
    const Stop& st = run_body(*s);
    EXPECT_EQ(st.kind, Stop::Kind::unsupported);
    EXPECT_NE(st.message.find(c.expect), std::string::npos) << st.message;
    for (auto b : img.bytes) ASSERT_EQ(b, std::byte{0});  // nothing written
  }
}

// ---- buffer_*_format_xyzw ---------------------------------------------------------------------------------------

TEST(BufferFormat, LoadXyzwUnorm8WithSwizzleAndStructuredRange) {
  auto s = test::make_snippet("buffer_load_format_xyzw v[4:7], v0, s[0:3], 0 idxen offset:8", Target::gfx90a);
  ASSERT_TRUE(s);
  Region& buf = patterned(*s, "buf", 4096);
  Wave& w = s->wave();
  // Stride 12, 40 records; BGRA: returned X = memory Z, Z = memory X.
  put_vsharp(w, 0, buf.base, 12, 40, sel(6, 5, 4, 7), kUnorm, kFmt8888);
  for (unsigned l = 0; l < 64; ++l) w.v[0][l] = l;
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const std::size_t at = l * 12 + 8;
    const unsigned order[4] = {2, 1, 0, 3};
    for (unsigned c = 0; c < 4; ++c) {
      const std::uint32_t want = l < 40 ? fbits(static_cast<float>(byte_at(buf, at + order[c])) / 255.0f) : 0u;
      EXPECT_EQ(w.v[4 + c][l], want) << "lane " << l << " comp " << c;
    }
  }
}

TEST(BufferFormat, StoreXyzwSint16TwoComponentsAndRawRange) {
  auto s = test::make_snippet("buffer_store_format_xyzw v[4:7], v0, s[0:3], 0 offen", Target::gfx90a);
  ASSERT_TRUE(s);
  Region& buf = s->machine.memory.region(s->machine.memory.map("buf", 4096, true));
  Wave& w = s->wave();
  // A 16_16 sint element is 4 bytes: Z and W of the instruction have no place in memory.
  put_vsharp(w, 0, buf.base, 0, 128, sel(4, 5, 0, 1), kSint, kFmt16_16);
  for (unsigned l = 0; l < 64; ++l) {
    w.v[0][l] = l * 4;  // lanes 32.. start at or past num_records = 128: out of range
    w.v[4][l] = static_cast<std::uint32_t>(-static_cast<int>(l));
    w.v[5][l] = l * 100;
    w.v[6][l] = 0xffffffff;
    w.v[7][l] = 0x12345678;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(le16(buf, l * 4), l < 32 ? static_cast<std::uint16_t>(-static_cast<int>(l)) : 0u) << l;
    EXPECT_EQ(le16(buf, l * 4 + 2), l < 32 ? static_cast<std::uint16_t>(l * 100) : 0u) << l;
  }
}

TEST(BufferFormat, Float32x4RoundTripsAndF16Loads) {
  auto s = test::make_snippet("buffer_load_format_xyzw v[4:7], v0, s[0:3], 0 idxen\n"
                              "buffer_load_format_xyzw v[8:11], v0, s[4:7], 0 idxen\n"
                              "s_waitcnt vmcnt(0)\n"
                              "buffer_store_format_xyzw v[4:7], v0, s[12:15], 0 idxen",
                              Target::gfx90a);
  ASSERT_TRUE(s);
  Region& src = patterned(*s, "src", 4096);
  Region& h = s->machine.memory.region(s->machine.memory.map("h", 4096, true));
  Region& dst = s->machine.memory.region(s->machine.memory.map("dst", 4096, true));
  const std::uint16_t halves[4] = {0x3c00, 0xbc00, 0x0001, 0x7bff};  // 1, -1, 2^-24, 65504
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned c = 0; c < 4; ++c) std::memcpy(h.bytes.data() + l * 8 + 2 * c, &halves[(c + l) % 4], 2);
  Wave& w = s->wave();
  put_vsharp(w, 0, src.base, 16, 64, kIdentity, kFloat, kFmt32x4);
  put_vsharp(w, 4, h.base, 8, 64, kIdentity, kFloat, kFmt16x4);
  put_vsharp(w, 12, dst.base, 16, 64, kIdentity, kUint, kFmt32x4);
  for (unsigned l = 0; l < 64; ++l) w.v[0][l] = l;
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  EXPECT_EQ(std::memcmp(src.bytes.data(), dst.bytes.data(), 64 * 16), 0);
  const float hv[4] = {1.0f, -1.0f, 0x1p-24f, 65504.0f};
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(ffrom(w.v[8 + c][l]), hv[(c + l) % 4]) << l << " " << c;
}

TEST(BufferFormat, UnsupportedFormatStops) {
  auto s = test::make_snippet("buffer_load_format_xyzw v[4:7], v0, s[0:3], 0 idxen", Target::gfx90a);
  ASSERT_TRUE(s);
  Region& buf = s->machine.memory.region(s->machine.memory.map("buf", 4096, true));
  Wave& w = s->wave();
  put_vsharp(w, 0, buf.base, 4, 64, kIdentity, kUnorm, 9);  // 2_10_10_10: packed
  const Stop& st = run_body(*s);
  EXPECT_EQ(st.kind, Stop::Kind::unsupported);
  EXPECT_NE(st.message.find("data format 9"), std::string::npos) << st.message;
}

TEST(ImageCoverage, TheFourBlitOpcodesHaveSemantics) {
  for (const Opcode o : {op::image_load, op::image_store, op::buffer_load_format_xyzw, op::buffer_store_format_xyzw}) {
    const Semantics* s = find_semantics(o);
    ASSERT_NE(s, nullptr) << op_name(o);
    EXPECT_FALSE(s->note.empty()) << op_name(o) << ": an approximate entry says what it approximates";
  }
}

}  // namespace
