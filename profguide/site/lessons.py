"""The lessons of Hugging Face's series "Profiling in PyTorch" (Parts 1 to 3), each with the section of this guide
that teaches it, and how fully: the data of the page ``docs/reference/hugging-face-lessons.md``.

Each lesson is said in the guide's own words, one teachable point each, and names the page and the heading (its
id, as the table of contents makes it) where the guide teaches it. A lesson taught only in part says why, and
quotes the words of its page that say what a CPU run, or the real traces the guide holds, cannot show; a lesson
the guide does not teach yet says what is missing. The build renders the table and its counts from these records,
and fails when a page, a heading or a quoted sentence is gone.
"""

import html
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import markdown

from profguide.site.fragment_run import FragmentError
from profguide.site.marks import FENCED, normalised
from profguide.text import cell, count_of, markdown_table

FRAGMENT = "hugging-face-lessons.md"  # in docs/generated/site/
PAGE = "reference/hugging-face-lessons.md"  # the page that includes it, under docs/
BLOG = "https://huggingface.co/blog/"
PARTS = {1: ("A Beginner's Guide to torch.profiler", BLOG + "torch-profiler"),
         2: ("From nn.Linear to a Fused MLP", BLOG + "torch-mlp-fusion"),
         3: ("Attention is all you profile", BLOG + "torch-attention-profile")}
# The extensions that give a page's headings the ids MkDocs gives them (mkdocs.yml's, less those that add text).
HEADING_EXTENSIONS = ["toc", "attr_list", "admonition", "md_in_html", "pymdownx.details", "pymdownx.superfences"]
CODE = re.compile(r"<code>(.*?)</code>")
Status = Literal["full", "partial", "missing"]  # how fully the guide teaches a lesson


@dataclass(frozen=True)
class Partly:
    """A lesson the guide teaches in part: what it leaves out, and the words of the lesson's page that say what a
    CPU run or the guide's real traces cannot show."""

    why: str
    page_says: str


@dataclass(frozen=True)
class NotYet:
    """A lesson the guide does not teach yet, though a page could: what is missing."""

    why: str


@dataclass(frozen=True)
class Lesson:
    """One point the series teaches (in the guide's words), the part it is from, and the page and heading id
    where the guide teaches it; ``gap`` says how the teaching falls short, when it does."""

    part: int
    says: str
    page: str  # under docs/
    anchor: str  # a heading's id on that page
    gap: Partly | NotYet | None = None

    @property
    def status(self) -> Status:
        statuses: dict[type, Status] = {type(None): "full", Partly: "partial", NotYet: "missing"}
        return statuses[type(self.gap)]


def full(part: int, says: str, page: str, anchor: str) -> Lesson:
    return Lesson(part, says, page, anchor)


def partly(part: int, says: str, page: str, anchor: str, why: str, page_says: str) -> Lesson:
    return Lesson(part, says, page, anchor, Partly(why, page_says))


FIRST = "basics/index.md"
TRACE = "basics/first-trace.md"
STEPS = "basics/steps.md"
TABLE = "reading-output/table.md"
DISPATCH = "reading-output/dispatch.md"
FOOTPRINT = "reading-output/footprint.md"
WAITS = "reading-output/gpu-waits.md"
IN_A_TRACE = "torch-compile/in-a-trace.md"
PAYS = "torch-compile/when-it-pays.md"
LINEAR = "inside-a-model/linear.md"
NAMES = "inside-a-model/kernel-names.md"
MLP = "inside-a-model/mlp.md"
ATTENTION = "inside-a-model/attention.md"
GPU_ONLY_EVENT = "this CPU recording cannot: it is a GPU-only event"
NO_CUDNN_TRACE = "no real trace in the guide runs the memory-efficient or the cuDNN backend"

LESSONS = (
    # Part 1: a matrix multiply and a bias add, eager and compiled.
    full(1, "A kernel runs on many GPU threads and the CPU launches it; profile with the CPU and CUDA activities "
            "and name your regions with `record_function`", FIRST, "profiling-it"),
    full(1, "The table finds the hotspots, sorted by the column that answers your question; the trace says when "
            "each thing ran, and where", FIRST, "which-column-do-i-sort-by"),
    full(1, "Self time leaves out the operators called inside; total time counts them", TABLE, "self-and-total"),
    full(1, "A cheap operator called very many times can be the bottleneck: read `# of Calls`", FIRST,
         "what-do-the-columns-mean"),
    full(1, "CPU time far above GPU time means an idle GPU: the work is overhead-bound", FIRST,
         "small-inputs-against-large-ones"),
    full(1, "Larger work moves a step from overhead-bound to compute-bound", FIRST,
         "small-inputs-against-large-ones"),
    full(1, "In a trace, width is duration, nesting is the call stack, the CPU and the GPU have lanes of their "
            "own, and gaps are idle time", TRACE, "the-cpu-lane-nesting-is-the-call-stack"),
    full(1, "Each launch on the CPU lane starts a kernel on the GPU lane, later", TRACE,
         "on-a-gpu-three-more-things-to-see"),
    full(1, "Open a trace in Perfetto and move with W, A, S and D", TRACE, "opening-it"),
    full(1, "A schedule (`wait`, `warmup`, `active`) picks the recorded steps; warming up keeps one-time costs out "
            "of the profile without removing them", STEPS, "a-schedule-wait-warmup-active"),
    full(1, "The first step is slow (allocations, library set-up, lazy loading), down to a dead window before its "
            "first operator", STEPS, "why-is-the-first-step-slow"),
    full(1, "The chain under a line of Python: step, region, `aten::matmul`, `aten::mm`, then `aten::add`",
         DISPATCH, "reading-the-chains"),
    full(1, "Batched 3-D operands go to `aten::bmm` instead of `aten::mm`", DISPATCH, "reading-the-chains"),
    full(1, "The GPU lane runs behind the CPU lane: follow a launch's arrow to its kernel", TRACE,
         "on-a-gpu-three-more-things-to-see"),
    partly(1, "The profiler's own buffer requests (Activity Buffer Request) delay the GPU lane at the start and "
              "open gaps between kernels: record more steps, and a gap that shows once is the profiler's",
           FOOTPRINT, "on-a-gpu-the-activity-buffer-request",
           "no trace of the guide holds a buffer request: the page tells the event and the test of more steps "
           "from the post's run", GPU_ONLY_EVENT),
    full(1, "An occupancy query asks how many blocks of a kernel fit on one SM", DISPATCH,
         "on-a-gpu-the-launch-and-the-kernel"),
    full(1, "Occupancy queries come before matrix-multiply launches, not elementwise ones: they mark a heavy "
            "kernel", DISPATCH, "on-a-gpu-the-launch-and-the-kernel"),
    full(1, "A kernel's footprint (threads, registers, shared memory) is heavy for a GEMM, light for an "
            "elementwise kernel", ATTENTION, "low-occupancy-by-design"),
    full(1, "A long `cudaDeviceSynchronize` is the CPU waiting for the GPU, and the profiler syncs when it stops",
         TRACE, "why-is-the-sync-so-long"),
    full(1, "The same kernel on the same data takes different times from call to call (clocks, heat, power, "
            "the driver)", STEPS, "kernel-times-vary-too"),
    full(1, "Read a kernel's spread, its median and p95, not its mean", WAITS,
         "kernel-time-that-varies-from-call-to-call"),
    full(1, "`torch.compile` is Dynamo, which captures a graph, AOTAutograd and Inductor, which writes the code",
         "torch-compile/cost.md", "the-first-call"),
    full(1, "Compiled code in a trace: the compiled region, the cache lookup of guards on every call, and "
            "AOTAutograd's prologue even without gradients", IN_A_TRACE, "reading-the-compiled-call"),
    full(1, "The hash in `## Call CompiledFxGraph …` names the generated code, which Inductor caches on disk",
         IN_A_TRACE, "reading-the-compiled-call"),
    full(1, "Inductor turns a multiply and an add into one `aten::addmm`: fused at the dispatcher, the same "
            "library GEMM on the GPU", IN_A_TRACE, "reading-the-compiled-call"),
    full(1, "A two-dimensional bias makes `addmm` copy it into the output first, a device-to-device copy nobody "
            "wrote", IN_A_TRACE, "on-a-gpu"),
    full(1, "A GEMM's epilogue adds the bias as the kernel writes its result out", LINEAR,
         "the-bias-rides-in-the-multiply"),
    full(1, "Compiling a single operator adds host time to every call", PAYS, "small-and-large"),
    full(1, "A compile mode, `reduce-overhead` with CUDA graphs, cuts the host's launches",
         PAYS, "modereduce-overhead-and-cuda-graphs"),
    full(1, "What a sign in a table or a trace usually means, at a glance", "reading-output/cheat-sheet.md",
         "cheat-sheet"),
    # Part 2: nn.Linear, a GeGLU MLP, compiled, and a hand-written kernel.
    full(2, "`nn.Linear` is `x @ W.T + b`: `aten::linear`, then `aten::t`, then `aten::addmm`", LINEAR,
         "the-chain-atenlinear-atent-atenaddmm"),
    full(2, "`aten::t` is a view: new strides over the same memory, no copy, no kernel; an input that is not "
            "contiguous is copied before a multiply", LINEAR, "views-bookkeeping-not-arithmetic"),
    full(2, "The bias has no kernel of its own: `addmm` adds it inside the GEMM", LINEAR,
         "the-bias-rides-in-the-multiply"),
    full(2, "Compiling one `nn.Linear` has nothing to fuse: the views' bookkeeping goes, `addmm` stays", LINEAR,
         "compiled-what-goes-and-what-stays"),
    full(2, "A GEMM's name gives its layout (`tn`, `nn`): the library picks a kernel built for the operands' "
            "strides, so a transpose costs no kernel", NAMES, "gemms-from-cublas-and-cutlass"),
    full(2, "A kernel's name is its fingerprint: the same name is the same work, a changed suffix another branch",
         NAMES, "reading-a-kernels-name"),
    full(2, "Guess a GeGLU MLP's operators before looking: three linears, a GELU and a product", MLP, "count-them"),
    full(2, "An eager MLP runs five kernels a forward, its GEMMs each after an occupancy query, the pointwise "
            "kernels without", MLP, "on-a-gpu-the-gemms-their-tiles-and-the-occupancy-queries"),
    full(2, "The views (`t`, `transpose`, `reshape`, `view`, `as_strided`, `_unsafe_view`) show no device time",
         MLP, "views-against-real-work"),
    full(2, "A 3-D input is folded into rows for one matrix multiply", LINEAR, "a-3-d-input"),
    full(2, "A compiled MLP calls three bare `aten::mm`, without the linear chains, and keeps the same GEMMs",
         MLP, "compiled-the-multiplies-stay-the-pointwise-ops-fuse"),
    full(2, "GEMMs of the same FLOPs but other shapes get other tiles, and other times", MLP,
         "on-a-gpu-the-gemms-their-tiles-and-the-occupancy-queries"),
    full(2, "A fused kernel's name says who wrote it, its kind and the operators it fused", NAMES,
         "kernels-that-inductor-generated"),
    full(2, "Fusing wins by keeping the intermediate on chip: one trip through memory fewer", MLP,
         "compiled-the-multiplies-stay-the-pointwise-ops-fuse"),
    partly(2, "A hand-written kernel from the Hub (the `kernels` library) fuses the block with no compile "
              "wrappers in the trace", MLP, "a-kernel-from-the-hub-or-inductors",
           "the `kernels` library needs CUDA and the network, so the page tells the trace from the post's run",
           "This guide holds no trace of a Hub kernel"),
    full(2, "Prebuilt, version-pinned kernels spare every user the build", MLP, "why-a-prebuilt-pinned-kernel"),
    full(2, "A generic kernel runs any shape; Inductor's is specialised to one shape and recompiles for another",
         MLP, "made-for-one-shape-or-for-any"),
    # Part 3: attention by hand, in place, and SDPA's backends.
    full(3, "Attention by hand is a multiply, a scale, a mask, a softmax and a multiply: guess the operators, then "
            "look", ATTENTION, "by-hand-the-copy-that-masked_fill-makes"),
    full(3, "An out-of-place `masked_fill` copies the whole score matrix", ATTENTION,
         "by-hand-the-copy-that-masked_fill-makes"),
    full(3, "`masked_fill_` drops the copy: one device-to-device copy fewer a forward, in every layer", ATTENTION,
         "in-place-masked_fill_"),
    full(3, "In place is safe only where no backward pass needs the old values, and it saves the copy's memory",
         ATTENTION, "in-place-masked_fill_"),
    partly(3, "SDPA's math backend is slower than attention by hand, with far more kernels", ATTENTION,
           "the-math-backend", "the CPU run counts its operators; no real trace runs the math backend, so its "
           "kernels are a prediction", "no real trace in the guide runs the math backend"),
    full(3, "`F.scaled_dot_product_attention` is one call over several backends; pin one with `sdpa_kernel`",
         ATTENTION, "fscaled_dot_product_attention-one-backend-at-a-time"),
    full(3, "The math backend computes in FP32: CUDA-core `sgemm` rather than tensor-core GEMMs", ATTENTION,
         "the-math-backend"),
    full(3, "The math backend rebuilds the causal mask on every call", ATTENTION, "the-math-backend"),
    full(3, "The math backend is the careful reference: `_safe_softmax` gives no NaN for a fully masked row",
         ATTENTION, "the-math-backend"),
    partly(3, "The memory-efficient backend is one `fmha_cutlassF` kernel, whose name says how it was built",
           ATTENTION, "memory-efficient-and-cudnn-on-a-gpu",
           "Reading a kernel's name decodes the name's parts from the pattern PyTorch writes them with; no real "
           "trace runs the backend, so its operators and kernel are predictions", NO_CUDNN_TRACE),
    full(3, "The flash backend is FlashAttention-2, one fused kernel a call", ATTENTION, "what-a-gpu-trace-adds"),
    full(3, "Flash exists because the scores would go to memory and back: tiles and a running softmax keep them on "
            "chip", ATTENTION, "the-flash-backend"),
    full(3, "Threads, warps, blocks and SMs, and what occupancy counts", ATTENTION, "low-occupancy-by-design"),
    full(3, "Flash's low occupancy, worked out from its footprint, is its design", ATTENTION,
         "how-many-blocks-fit-on-an-sm"),
    partly(3, "cuDNN generates a kernel for each problem, reads the inputs' layout as it is, and names it so",
           ATTENTION, "memory-efficient-and-cudnn-on-a-gpu",
           "no real trace runs cuDNN's attention: its operators and kernels are predictions", NO_CUDNN_TRACE),
    full(3, "An occupancy of 0 % is not a stalled GPU: work it out from the footprint; some kernels launch "
            "through the driver (`cuLaunchKernelEx`)", ATTENTION, "when-the-column-reads-0"),
    partly(3, "cuDNN's cost moves to the CPU: fewer operators, more host time inside the library, so a cleaner "
              "trace is not less work", ATTENTION, "all-the-variants-side-by-side",
           "the CPU runs show work hidden inside one operator (flash's one op against the math backend's many); "
           "the page reports the post's cuDNN finding, which no trace of the guide times on the host",
           NO_CUDNN_TRACE),
    partly(3, "Which backend is fastest depends on the shape and the GPU", ATTENTION, "what-to-change",
           "no trace of the guide times the backends against each other on a GPU", NO_CUDNN_TRACE),
)


@cache
def headings(page_text: str) -> dict[str, str]:
    """{id: the heading's text as Markdown} of every heading a page writes itself (not those of the fragments it
    includes), with the ids MkDocs gives them."""
    md = markdown.Markdown(extensions=HEADING_EXTENSIONS)
    md.convert(page_text)
    found: dict[str, str] = {}
    tokens = list(md.toc_tokens)
    while tokens:
        token = tokens.pop(0)
        found[token["id"]] = html.unescape(CODE.sub(r"`\1`", token["html"]))
        tokens[:0] = token["children"]
    return found


def prose(page_text: str) -> str:
    """A page's words as a reader reads them, without its code blocks."""
    return normalised(FENCED.sub("", page_text))


def problems(lessons: Sequence[Lesson], docs: str | os.PathLike[str]) -> list[str]:
    """What makes the table wrong: a page, a heading or the words a gap quotes that are not there."""
    found = []
    for lesson in lessons:
        path = Path(docs) / lesson.page
        if not path.is_file():
            found.append(f"{lesson.says!r}: no page {lesson.page}")
            continue
        text = path.read_text()
        if lesson.anchor not in headings(text):
            found.append(f"{lesson.says!r}: no heading #{lesson.anchor} on {lesson.page}")
        if isinstance(lesson.gap, Partly) and normalised(lesson.gap.page_says) not in prose(text):
            found.append(f"{lesson.says!r}: {lesson.page} does not say {lesson.gap.page_says!r}")
    return found


def counts(lessons: Sequence[Lesson]) -> dict[Status, int]:
    """How many lessons are taught in full, in part, and not yet."""
    statuses = [lesson.status for lesson in lessons]
    every: tuple[Status, ...] = ("full", "partial", "missing")
    return {status: statuses.count(status) for status in every}


def counts_sentence(lessons: Sequence[Lesson]) -> str:
    found = counts(lessons)
    return (f"{count_of(len(lessons), 'lesson')}: {found['full']} taught in full, {found['partial']} in part, "
            f"{found['missing']} not yet.")


def how_taught(lesson: Lesson) -> str:
    if lesson.gap is None:
        return "In full"
    words = "In part" if isinstance(lesson.gap, Partly) else "Not yet"
    return f"{words}: {cell(lesson.gap.why, markdown=True)}"


def where(lesson: Lesson, docs: str | os.PathLike[str]) -> str:
    """A link to the lesson's section, relative to the lessons' page: the page's title and the heading."""
    found = headings((Path(docs) / lesson.page).read_text())
    title = next(iter(found.values()))
    target = posixpath.relpath(lesson.page, posixpath.dirname(PAGE))
    section = found[lesson.anchor]
    label = title if section == title else f"{title}: {section}"
    return f"[{cell(label, markdown=True)}]({target}#{lesson.anchor})"


def lessons_table(docs: str | os.PathLike[str], lessons: Sequence[Lesson] = LESSONS) -> str:
    """The fragment: the counts, then each part's lessons with where the guide teaches them and how fully."""
    wrong = problems(lessons, docs)
    if wrong:
        raise FragmentError("the Hugging Face lessons: " + "; ".join(wrong))
    lines = [counts_sentence(lessons), ""]
    for part, (title, address) in PARTS.items():
        mine = [lesson for lesson in lessons if lesson.part == part]
        if not mine:
            continue
        lines += [f"## Part {part}: [{title}]({address})", "", counts_sentence(mine), "",
                  '<div class="pg-reflow" markdown>', "",
                  markdown_table(["Lesson", "Where this guide teaches it", "Taught"],
                                 [[cell(lesson.says, markdown=True), where(lesson, docs), how_taught(lesson)]
                                  for lesson in mine], "lll"),
                  "</div>", ""]
    return "\n".join(lines)
