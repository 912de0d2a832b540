"""profguide.site.kernel_table: every kind of kernel in the real traces, decoded as explain decodes it."""

import re
from html import unescape

import numpy as np

from profguide import trace
from profguide.site import build
from profguide.site.kernel_table import families_table, family_groups
from profguide.trace.model import KIND
from tests.helpers import ROOT, TRACES
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make

SGEMM_NN = "ampere_sgemm_128x64_nn"
SGEMM_TN = "ampere_sgemm_32x32_sliced1x4_tn"
TENSILE = ("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x224x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_"
           "CLR1_CADS0")
POINTWISE = "triton_poi_fused_add_cos_sin_0"


def kernels(*names):
    return make(*(gpu(name, 10 * index, 5) for index, name in enumerate(names)))


def rows(text):
    """The table's body rows, each as its cells with the HTML read back into text."""
    lines = [line for line in text.splitlines() if line.startswith("|")][2:]  # the rows, under heading and rule
    return [[unescape(re.sub(r"<[^>]+>", "", part)).strip() for part in line.strip("|").split(" | ")]
            for line in lines]


def test_names_that_decode_alike_share_a_row_with_their_layouts_tiles_and_traces():
    table = families_table([("a.json.gz", kernels(SGEMM_NN, SGEMM_TN, SGEMM_NN)),
                            ("b.json.gz", kernels(SGEMM_TN, TENSILE, POINTWISE))])
    found = rows(table)
    assert [row[0] for row in found] == ["GEMMs", "GEMMs", "Triton kernels"]
    cublas, tensile, triton = found
    assert cublas[1] == ("cuBLAS · fp32 · not on tensor cores · layouts nn, tn · tiles 32x32_sliced1x4, 128x64")
    assert cublas[2:] == [SGEMM_NN, "2", "a, b"]  # the shorter name is the example; each trace named once
    assert tensile[1] == "hipBLASLt/Tensile · bf16 · tensor or matrix cores · layout tn · tile 128x224x64"
    assert tensile[3:] == ["1", "b"]
    assert triton[1] == "Triton · pointwise · fuses add_cos_sin"


def test_a_long_name_is_cut_with_the_whole_name_in_its_tooltip():
    table = families_table([("a.json.gz", kernels(TENSILE))])
    title = re.search(r'<span title="([^"]*)">', table)
    assert title and unescape(title.group(1)) == TENSILE
    assert TENSILE not in unescape(re.sub(r'title="[^"]*"', "", table))


def test_a_trace_without_kernels_adds_no_row_and_an_undecoded_name_says_so():
    no_kernels = make(gpu("Memcpy HtoD (Pageable -> Device)", 0, 5, kind="memcpy"))
    table = families_table([("empty.json.gz", no_kernels)])
    assert [line for line in table.splitlines() if line.startswith("|")][2:] == []  # the headings and the rule only
    assert rows(families_table([("a.json.gz", kernels("spin"))])) == [["other kernels", "—", "spin", "1", "a"]]


def test_every_distinct_kernel_name_of_the_real_traces_is_in_exactly_one_row():
    traces = [(path.name, trace.load(path)) for path in sorted(TRACES.glob("*.json.gz"))]
    names = set()
    for _, loaded in traces:
        names |= {loaded.names[code] for code in np.unique(loaded.name[loaded.kind == KIND["kernel"]]).tolist()}
    groups = family_groups(traces)
    assert sorted(name for group in groups for name in group.names) == sorted(names)
    table_rows = rows(families_table(traces))
    assert len(table_rows) == len(groups) and sum(int(row[3]) for row in table_rows) == len(names)
    # The families the page teaches from are there: GEMMs on both vendors, flash and Triton attention.
    said = [row[1] for row in table_rows]
    assert any(words.startswith("hipBLASLt/Tensile · bf16") for words in said)
    assert any("flash backend" in words for words in said) and any("Triton backend" in words for words in said)
    assert any("split-K reduction" in words for words in said)


def test_the_build_writes_the_table_for_a_page_that_includes_it():
    files = build.site_files(ROOT, [], {"kernel-families.md": ["inside-a-model/kernel-names.md"]})
    assert files["kernel-families.md"].startswith('<div class="pg-reflow" markdown>\n\n| Family | What the names '
                                                  "say |")
    assert "hipBLASLt/Tensile" in files["kernel-families.md"]


