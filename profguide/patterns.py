"""The names torch, its communication backends and its compilers give to events, each defined here once.

Standard library only: the loader, the analysis, the figures and the site all read these.
"""

import re

# The region ``prof.step()`` marks, with its number (``match``: the name starts with it).
STEP = re.compile(r"ProfilerStep#(\d+)$")

# A kernel, op or thread of a communication backend: NCCL, RCCL (AMD's NCCL) or gloo (``search``).
COMMUNICATION = re.compile(r"nccl|rccl|gloo", re.IGNORECASE)

# A communication backend's own op for one collective (``nccl:all_reduce``, ``gloo:all_reduce``): group 1 is
# the backend, group 2 the collective.
BACKEND_OP = re.compile(r"^(gloo|nccl|rccl|mpi|ucc|xccl):(\w+)$")

# The matrix-multiply ops torch records, each with the position of its first matrix among its inputs (addmm
# and baddbmm take the matrix they add first).
GEMM_FIRST_MATRIX = {"aten::mm": 0, "aten::addmm": 1, "aten::bmm": 0, "aten::baddbmm": 1, "aten::_scaled_mm": 0}
GEMM_OPS = frozenset(GEMM_FIRST_MATRIX)

# What the names of matrix-multiply kernels hold (lower-cased): cuBLAS's and cuDNN's ``…gemm…``, CUTLASS's,
# and the ``xmma`` kernels of NVIDIA's libraries.
GEMM_KERNEL_MARKS = ("gemm", "cutlass", "xmma")

# torch.compile's names: each call of a compiled frame is a ``Torch-Compiled Region: F/R`` op; it calls its
# graph, ``## Call CompiledFxGraph <hash> ##`` under Inductor (inside ``CompiledFunction`` with autograd).
COMPILED_REGION = "Torch-Compiled Region"
COMPILED_GRAPH = ("## Call CompiledFxGraph", "CompiledFunction")
