"""Communication kernels (NCCL, RCCL, gloo) and how much of their time computation hides."""

import re

import numpy as np

from profguide.analysis.idle import busy_intervals
from profguide.analysis.intervals import union_length
from profguide.analysis.kernels import kernel_rows
from profguide.analysis.select import kinds_mask, names_where
from profguide.trace.model import KIND

COMMUNICATION = re.compile(r"nccl|rccl|gloo", re.IGNORECASE)


def communication(trace):
    """Communication kernels (NCCL, RCCL, gloo): their time and how much of it overlaps computation."""
    is_comm = names_where(trace, COMMUNICATION.search)
    kernels = trace.kind == KIND["kernel"]
    comm, compute = kernels & is_comm, kernels & ~is_comm
    everywhere = (-np.inf, np.inf)
    comm_us = union_length(*busy_intervals(trace, everywhere, comm))
    compute_us = union_length(*busy_intervals(trace, everywhere, compute))
    both = union_length(*busy_intervals(trace, everywhere, comm | compute))
    overlap = comm_us + compute_us - both
    host_comm = kinds_mask(trace, ("cpu_op", "annotation")) & is_comm
    return {
        "kernels": int(comm.sum()),
        "kernel_us": comm_us,
        "overlapped_us": overlap,
        "exposed_us": comm_us - overlap,
        "overlap_pct": 100 * overlap / comm_us if comm_us else None,
        "host_ops": int(host_comm.sum()),
        "top": [{"name": row["name"], "total_us": row["total_us"], "count": row["count"]}
                for row in kernel_rows(trace, comm, 5)],
    }
