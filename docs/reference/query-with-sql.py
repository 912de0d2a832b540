# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   profguide:
#     nav_title: Query a trace with SQL
#     nav_order: 65
# ---

# %% [markdown]
# # Query a trace with SQL
#
# `profguide explain` asks the questions the guide teaches. Yours may differ: which kernel ran just before the
# GPU went quiet, how many kernels each op launched in each step, how two ranks lined up. `profguide export`
# writes a trace as tables ([A trace as tables](../explain/#a-trace-as-tables) lists every column), and any
# engine that reads Parquet can answer from there. This page asks DuckDB and Polars three such questions of real
# traces, and the build runs it: each output is what the code printed when the site was built, and each answer
# that `explain` also gives is checked against `explain`'s own number by an `assert`. To run it yourself, work
# in a clone of the guide's repository after `pip install -e '.[tables]' duckdb polars`.
#
# ## Export a trace
#
# The command writes one Parquet file per table into the folder it is given. Here it exports an H100's
# inference run of Qwen1.5-0.5B, and `explain --json` summarises the same trace, for the checks below.

# %%
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import profguide

checkout = Path(profguide.__file__).resolve().parents[1]
docs = checkout / "docs"
scratch = Path(tempfile.mkdtemp(prefix="query-with-sql-"))


def profguide_command(*args: str) -> str:
    """Run ``profguide ARGS`` as a reader would (the checkout's own), and return what it printed."""
    done = subprocess.run([sys.executable, "-m", "profguide", *args], cwd=checkout, capture_output=True, text=True,
                          check=True)
    return done.stdout


qwen = docs / "traces" / "h100_qwen1.5_0.5b_inference.json.gz"
tables = scratch / "qwen"
print(profguide_command("export", str(qwen), "--parquet", str(tables)))
summary = json.loads(profguide_command("explain", "--json", str(qwen)))
print(sorted(path.name for path in tables.iterdir()))

# %% [markdown]
# ## The longest idle gaps, and what ran before each
#
# The `idle` table holds every gap in the GPU's work over the window `explain` measures, each with its cause;
# `explain` prints the five longest. Joining each gap to the GPU op that finished last before it began (an
# `ASOF JOIN` in DuckDB) says what the GPU had just done when it went quiet: often the end of a phase of the
# model, or the last kernel before the host stopped to synchronise. The cell checks its answer against
# `explain`: the five longest gaps with their causes, and the idle time they add up to.

# %%
import duckdb

sql = duckdb.connect()
for table in ("idle", "kernels", "ops", "steps", "launches"):
    sql.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{tables / table}.parquet')")

longest = sql.sql("""
    SELECT gap.start_us, gap.dur_us, gap.cause, before.name AS ran_before
    FROM (SELECT * FROM idle ORDER BY dur_us DESC LIMIT 10) AS gap
    ASOF LEFT JOIN (SELECT name, ts_us + dur_us AS end_us FROM kernels) AS before
        ON gap.start_us >= before.end_us
    ORDER BY gap.dur_us DESC
""").fetchall()
first = summary["trace_start_us"]
for start_us, dur_us, cause, ran_before in longest:
    print(f"{dur_us / 1000:7.3f} ms at +{(start_us - first) / 1000:8.3f} ms  {cause:>8}  after {ran_before[:60]}")

assert [(dur, cause) for _, dur, cause, _ in longest[:5]] == [
    (gap["dur_us"], gap["cause"]) for gap in summary["idle"]["longest_gaps"]], "not explain's five longest gaps"
assert abs(sql.sql("SELECT sum(dur_us) FROM idle").fetchall()[0][0] - summary["idle"]["idle_us"]) < 1e-6, \
    "the gaps do not add up to explain's idle time"

# %% [markdown]
# ## Kernels per op per step
#
# A kernel's `op` is the op that launched it (the innermost op open on the thread at its launch call, as the op
# view joins them) and its `launch` the call itself; a step is the `ProfilerStep#N` region that was open when
# the call was made. Polars joins the three: each kernel to its op's name, and each launch to the step that
# began last before it.

# %%
import polars as pl

kernels = pl.read_parquet(tables / "kernels.parquet")
launches = pl.read_parquet(tables / "launches.parquet").select(
    pl.col("event").alias("launch"), pl.col("ts_us").alias("launched_us"))
steps = pl.read_parquet(tables / "steps.parquet").with_columns(end_us=pl.col("start_us") + pl.col("dur_us"))
per_step = (
    kernels.filter(pl.col("kind") == "kernel")
    .join(launches, on="launch")
    .sort("launched_us")
    .join_asof(steps.sort("start_us"), left_on="launched_us", right_on="start_us")
    .filter(pl.col("launched_us") < pl.col("end_us"))
    .group_by("step", pl.col("op_name").cast(pl.String))
    .agg(kernels=pl.len(), kernel_ms=pl.col("dur_us").sum() / 1000)
    .sort(["step", "kernels"], descending=[False, True])
)
print(per_step.head(8))

# %% [markdown]
# The same join, added up by op name over the whole trace, is the op view's self device time: `explain --ops`
# counts each kernel once, for the op that launched it. The join keeps the ops alone, since a region
# (`record_function`) launches kernels too.

# %%
op_view = json.loads(profguide_command("explain", "--ops", "--json", str(qwen)))
ops = pl.read_parquet(tables / "ops.parquet").select("event")
by_op = (kernels.join(ops, left_on="op", right_on="event")
         .group_by(pl.col("op_name").cast(pl.String)).agg(pl.col("dur_us").sum()))
from_tables = dict(by_op.iter_rows())
from_explain: dict[str, float] = {}
for row in op_view["ops"]:
    if row["self_device_us"]:
        from_explain[row["name"]] = from_explain.get(row["name"], 0.0) + row["self_device_us"]
assert from_tables.keys() == from_explain.keys()
assert all(abs(from_tables[name] - us) <= 1e-6 * max(us, 1.0) for name, us in from_explain.items())
print(f"{len(from_tables)} ops launched GPU work; each one's time agrees with explain --ops")

# %% [markdown]
# ## Two ranks side by side
#
# Two ranks of a 128-rank NCCL job, exported into two folders, make one query: DuckDB numbers each rank's NCCL
# kernels in order of start and joins the two ranks on that number, so each row is one collective as both ranks
# ran it. How far apart the two started is how long the earlier rank waited for the later one inside the
# collective, on clocks that agree only as well as the two hosts' do (the same host here; across hosts, align them
# first, as [Many ranks](../../multi-gpu/many-ranks/) does on a collective). The cell's last lines check that each
# rank's NCCL kernels inside explain's window are the ones explain counts, with the same total time.

# %%
ranks = {}
for rank in (0, 1):
    path = docs / "traces" / f"nccl_128rank_sampled_rank{rank}.json.gz"
    profguide_command("export", str(path), "--parquet", str(scratch / f"rank{rank}"))
    ranks[rank] = json.loads(profguide_command("explain", "--json", str(path)))
    sql.execute(f"""CREATE VIEW nccl{rank} AS
        SELECT row_number() OVER (ORDER BY ts_us) AS collective, name, ts_us, dur_us
        FROM read_parquet('{scratch / f"rank{rank}" / "kernels.parquet"}') WHERE name LIKE 'ncclKernel%'""")

pairs = sql.sql("""
    SELECT nccl0.collective, nccl0.dur_us AS rank0_us, nccl1.dur_us AS rank1_us,
           nccl1.ts_us - nccl0.ts_us AS rank1_later_us, nccl0.name
    FROM nccl0 JOIN nccl1 USING (collective)
    WHERE nccl0.name = nccl1.name
    ORDER BY collective
""").fetchall()
for collective, rank0_us, rank1_us, later_us, name in pairs:
    print(f"#{collective}: rank 0 {rank0_us / 1000:7.2f} ms, rank 1 {rank1_us / 1000:7.2f} ms, "
          f"rank 1's start less rank 0's {later_us / 1000:+8.2f} ms  {name[:40]}")

for rank, found in ranks.items():
    window = found["window"]
    count, total = sql.sql(f"SELECT count(*), coalesce(sum(dur_us), 0) FROM nccl{rank} "
                           f"WHERE ts_us >= {window['start_us']} AND ts_us < {window['end_us']}").fetchall()[0]
    assert (count, total) == (found["communication"]["kernels"], found["communication"]["kernel_us"]), (
        f"rank {rank}'s NCCL kernels in explain's window are not those explain counts")
