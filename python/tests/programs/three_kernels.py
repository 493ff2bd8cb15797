"""Three small Triton kernels (vector add, row softmax, layer norm) and checksums of what they computed.

asmevo_triton's GPU tests run it with and without `capture` and compare the output; run it by hand with
`python three_kernels.py` (add `--overlap` for one extra add_kernel launch on two overlapping views of one tensor,
which a capture cannot express).
"""
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, d * rstd * w + b, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=1024)
    return out


def softmax(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    rows, cols = x.shape
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    return out


def layernorm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    y = torch.empty_like(x)
    rows, cols = x.shape
    layernorm_kernel[(rows,)](x, y, w, b, x.stride(0), cols, eps, BLOCK=triton.next_power_of_2(cols))
    return y


def report(name: str, got: torch.Tensor, want: torch.Tensor) -> None:
    err = (got.double() - want.double()).abs().max().item()
    print(f"{name}: checksum {got.double().sum().item():.6f} max_error {err:.3e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--overlap", action="store_true", help="also add two overlapping views of one tensor")
    opts = parser.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    for n in (98432, 4096):  # both multiples of 16: one specialization, two launches
        x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
        report(f"add[{n}]", add(x, y), x + y)
    x = torch.randn(64, 781, device=dev)
    report("softmax", softmax(x), torch.softmax(x, dim=1))
    x = torch.randn(128, 512, device=dev)
    w, b = torch.rand(512, device=dev), torch.randn(512, device=dev)
    report("layernorm", layernorm(x, w, b, 1e-5), torch.nn.functional.layer_norm(x, (512,), w, b, 1e-5))
    if opts.overlap:
        buf = torch.randn(4097, device=dev)
        report("add[overlap]", add(buf[:-1], buf[1:]), buf[:-1] + buf[1:])


if __name__ == "__main__":
    main()
