"""A hang caught in the act: the flight recorder's buffer on two ranks, one of which skipped a collective.

Start it with torchrun, two processes on the CPU (Gloo):

    torchrun --nproc-per-node 2 snippets/reference/around_the_profiler/flight_recorder.py

Rank 0 calls one all_reduce more than rank 1 and waits for it. Each rank reads its flight recorder while
rank 0 waits; then rank 1 joins the late collective, so that the job ends instead of hanging.
"""

import json
import os

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile


# --8<-- [start:read]
def flight_recorder():
    """This rank's flight recorder, as the dump on a timeout would hold it. A private function: the
    tutorial names its older spelling, ``_dump_nccl_trace``, which only NCCL process groups have."""
    return json.loads(torch._C._distributed_c10d._dump_fr_trace_json())


def recorded(buffer):
    """What a reader of a dump looks at first: each collective's number, name and sizes, in order."""
    return [{"seq": entry["collective_seq_id"], "name": entry["profiling_name"], "sizes": entry["input_sizes"]}
            for entry in buffer["entries"]]
# --8<-- [end:read]


# --8<-- [start:hang]
def skip_a_collective(collectives=3, on_trace_ready=None):
    # The flight recorder keeps each rank's last N collectives, N read from this variable when the process group
    # starts (TORCH_NCCL_TRACE_BUFFER_SIZE is its older name; 0 turns the recorder off, older releases' default).
    os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "2000")
    dist.init_process_group("gloo")
    rank, store = dist.get_rank(), dist.distributed_c10d._get_default_store()
    tensor = torch.ones(4)
    with profile(activities=[ProfilerActivity.CPU], on_trace_ready=on_trace_ready):
        for _ in range(collectives):
            dist.all_reduce(tensor)
        # Rank 0 calls one more, which no other rank joins: in a real job, this is where it hangs.
        late = dist.all_reduce(tensor, async_op=True) if rank == 0 else None
    store.set(f"recorder-{rank}", json.dumps(recorded(flight_recorder())))
    store.wait([f"recorder-{other}" for other in range(dist.get_world_size())])  # every rank has read its own
    if rank == 0:
        late.wait()
    else:
        dist.all_reduce(tensor)  # join it late, so that this job ends
    ranks = [json.loads(store.get(f"recorder-{other}")) for other in range(dist.get_world_size())]
    dist.destroy_process_group()
    return {"ranks": ranks}
# --8<-- [end:hang]


if __name__ == "__main__":
    ranks = skip_a_collective()["ranks"]
    if os.environ.get("RANK", "0") == "0":  # every rank holds every buffer: one of them prints
        for number, found in enumerate(ranks):
            print(f"rank {number}: " + ", ".join(f"{c['seq']} {c['name']}" for c in found))
