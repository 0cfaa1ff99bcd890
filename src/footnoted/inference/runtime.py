"""The CPU a model runs on: its instruction sets, the threads models use in this process,
and the precision that follows (int8 where the CPU multiplies int8 natively, bf16 where it
computes bf16 natively, fp32 elsewhere). Shared by the embedder and the reader."""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path
from typing import Any


@cache
def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split()}


def cpu_has_native_bf16() -> bool:
    """True when the CPU computes bf16 natively (AMX or AVX512-BF16)."""
    return bool(_cpu_flags() & {"amx_bf16", "avx512_bf16"})


def cpu_has_native_int8() -> bool:
    """True when the CPU multiplies int8 into int32 in one instruction (VNNI or AMX), so
    ONNX Runtime's int8 products are exact and the same on every such CPU (without it,
    they go through 16-bit sums that can saturate)."""
    return bool(_cpu_flags() & {"avx512_vnni", "avx_vnni", "amx_int8"})


_threads: int | None = None  # ``set_threads``' count; None: the default


def set_threads(count: int) -> int:
    """Set the CPU threads models use in this process, PyTorch's too (now where it is
    loaded, else when it loads a model: ``pytorch``); returns the previous count.
    PyTorch is not imported for it: a server whose models all run in ONNX Runtime
    never loads it."""
    global _threads
    previous = model_threads()
    _threads = count
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(count)
    return previous


def model_threads() -> int:
    """The CPU threads a model may use in this process: ``set_threads``' count, else
    PyTorch's where it is loaded (one per core), else one per CPU this process may run
    on, without loading PyTorch to ask."""
    if _threads is not None:
        return _threads
    torch = sys.modules.get("torch")
    if torch is not None:
        return int(torch.get_num_threads())
    return len(os.sched_getaffinity(0))


def pytorch() -> Any:
    """PyTorch, on ``set_threads``' count: how a model to run in it is loaded."""
    import torch

    if _threads is not None and torch.get_num_threads() != _threads:
        torch.set_num_threads(_threads)
    return torch


def limit_blas_threads() -> None:
    """NumPy's BLAS on one thread in this process.

    OpenBLAS's idle threads spin after each call and take the cores from the PyTorch call
    that follows: on 2 cores, the reader took 95 ms over 5 passages right after a product
    of a question's vector with 100,000 stored ones, 52 ms without it, and 36 ms after it
    with BLAS on one thread (the product itself 4.6 ms instead of 3.0)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def resolve_precision(setting: str) -> str:
    """What embeds batches of chunks. ``auto`` becomes int8 where the CPU multiplies int8
    natively and has no AMX (each chunk alone, unpadded: ``footnoted ingest`` of the
    shared PDFs in 0.59 of bf16's time on a 2-core AVX512-BF16 EPYC, see
    ``embed_passages``), bf16 on AMX (where PyTorch's bf16 ran 2x fp32 and ONNX
    Runtime's int8 0.65x) and other CPUs with native bf16, fp32 elsewhere."""
    if setting == "auto" and cpu_has_native_int8() and "amx_bf16" not in _cpu_flags():
        return "int8"
    return "int8" if setting == "int8" else float_precision(setting)


def float_precision(setting: str) -> str:
    """bf16 or fp32: a precision setting's own, or for ``auto`` and ``int8`` (which
    embeds chunks only) bf16 where the CPU computes it natively, fp32 elsewhere. What a
    model runs in when not in int8."""
    if setting in ("bf16", "fp32"):
        return setting
    return "bf16" if cpu_has_native_bf16() else "fp32"
