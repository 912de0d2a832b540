"""The notebook page's styles: cut to the rules its elements can match and the custom properties they read."""

import re

from profguide import trace
from profguide.analysis.job import trace_summary
from profguide.site.notebook_page import inputs_key, keyed_cache, local_kernel_config, split_outside, used_css
from tests.helpers import ROOT

TRACE = ROOT / "docs" / "traces" / "a100_nccl_2rank_rank0.json.gz"  # the page's trace
PAGE = '<div class="jupyter-wrapper"><div class="jp-Cell jp-CodeCell"><pre class="jp-Out">x</pre></div></div>'


def styled(css):
    return used_css(f"<style>{css}</style>{PAGE}")


def test_rules_for_classes_on_the_page_stay_and_others_go():
    css = styled(".jupyter-wrapper .jp-Cell{color:red}.jupyter-wrapper .jp-Widget{color:blue}"
                 ".jp-Cell .jp-Slider,.jp-Out{margin:0}")
    assert ".jupyter-wrapper .jp-Cell{color:red}" in css
    assert "jp-Widget" not in css and "jp-Slider" not in css
    assert ".jp-Out{margin:0}" in css  # only the selector of the list that can match is kept


def test_rules_for_bare_elements_go_so_that_the_rest_of_the_page_keeps_its_look():
    assert "<style>" not in styled("body{margin:0}pre{color:red}a:hover{color:blue}")


def test_custom_properties_stay_when_a_kept_rule_reads_them_even_through_another():
    css = styled(":root{--jp-a:var(--jp-b);--jp-b:1px;--jp-unused:2px}.jp-Cell{margin:var(--jp-a)}")
    assert "--jp-a:var(--jp-b)" in css and "--jp-b:1px" in css
    assert "--jp-unused" not in css


def test_media_blocks_keep_their_matching_rules_and_other_at_rules_go():
    css = styled("@media (max-width:600px){.jp-Cell{padding:0}.jp-Widget{padding:1px}}"
                 "@media print{.jp-Widget{color:red}}@font-face{font-family:x;src:url(x.woff)}"
                 "@keyframes spin{from{opacity:0}to{opacity:1}}")
    assert css.count("@media") == 1 and "@media (max-width:600px){.jp-Cell{padding:0}}" in css
    assert "font-face" not in css and "keyframes" not in css


def test_a_selector_list_splits_at_its_own_commas_only():
    assert split_outside('.a:is(.b, .c), .d[title="x,y"]', ",") == [".a:is(.b, .c)", '.d[title="x,y"]']


def test_semicolons_inside_a_data_url_or_a_string_do_not_split_a_declaration():
    body = 'background:url("data:image/svg+xml;base64,AAA;");content:"a;b";color:red'
    expected = ['background:url("data:image/svg+xml;base64,AAA;")', 'content:"a;b"', "color:red"]
    assert split_outside(body, ";") == expected


def test_comments_and_a_brace_in_a_string_do_not_confuse_the_rules():
    css = styled('/* .jp-Cell{color:red} */.jp-Cell::after{content:"}"}.jp-Out{color:green}')
    assert '.jp-Cell::after{content:"}"}' in css and ".jp-Out{color:green}" in css and "/*" not in css


def test_the_kernel_config_starts_kernels_on_local_sockets_in_the_given_folder(tmp_path):
    folder = local_kernel_config(tmp_path)
    text = (folder / "jupyter_nbconvert_config.json").read_text()
    assert '"transport": "ipc"' in text and str(tmp_path / "kernel") in text


def test_the_built_notebook_page_shows_its_outputs_with_under_100_kb_of_styles(built_site):
    page = (built_site / "reference" / "analyse-in-python" / "index.html").read_text()
    styles = sum(len(css.encode()) for css in re.findall(r"<style[^>]*>(.*?)</style>", page, re.S))
    assert 0 < styles <= 100_000, styles
    assert "jp-OutputArea-output" in page and "<svg" in page  # executed: its printed text and its drawn step
    verdict = trace_summary(trace.load(TRACE), TRACE.name)["verdict"]
    assert f": {verdict}" in page and "ProfilerStep#" in page  # what the build's kernel printed: this run's verdict


def test_the_cache_of_executed_pages_is_kept_apart_for_each_state_of_the_code_and_the_traces(tmp_path):
    (tmp_path / "profguide").mkdir()
    (tmp_path / "docs" / "traces").mkdir(parents=True)
    code, trace_file = tmp_path / "profguide" / "a.py", tmp_path / "docs" / "traces" / "t.json"
    code.write_text("x = 1\n")
    trace_file.write_text("{}")
    first = inputs_key(tmp_path)
    code.write_text("x = 2\n")
    second = inputs_key(tmp_path)
    trace_file.write_text('{"traceEvents": []}')
    assert len({first, second, inputs_key(tmp_path)}) == 3
    cache = tmp_path / "cache"
    keyed_cache(cache, first).mkdir(parents=True)
    assert keyed_cache(cache, second) == cache / second and not (cache / first).exists()  # the old state's goes
