"""Capture Triton kernel launches into a folder that `asmevo optimize-dir` reads (see FORMAT.md).

Run as `python -m asmevo_triton capture --out DIR -- python program.py ARGS...`. The modules `marshal` and
`recorder` are pure Python (no torch, no triton), so the capture folder's format is tested anywhere; `hook` and
`amd` import torch and triton only when a launch is captured.
"""
