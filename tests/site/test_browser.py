"""A real browser over the built site: the pages and their figures render in the light and the dark scheme.

Playwright drives Debian's Chromium (found on PATH; `.ci/run` installs it).
Screenshots are kept under test-output/ for a person to look at.
"""

import contextlib
import functools
import http.server
import os
import re
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Empty, Queue

import pytest

from tests.helpers import ROOT

CHROMIUM = shutil.which("chromium")
SCREENSHOTS = ROOT / "test-output"
PAGE = "basics/first-trace/"
PART_ONE = ["", "basics/", "basics/first-trace/", "basics/steps/", "basics/cpu-only/", "reference/"]
PART_TWO = [f"reading-output/{page}/" for page in ("table", "dispatch", "gpu-waits", "input-pipeline", "memory",
                                                   "footprint", "cheat-sheet")]
PART_THREE = ["multi-gpu/"] + [f"multi-gpu/{page}/" for page in ("per-rank", "collectives", "overlap", "straggler",
                                                                  "many-ranks")]
PART_FOUR = ["torch-compile/"] + [f"torch-compile/{page}/" for page in ("in-a-trace", "cost", "graph-breaks", "fusion",
                                                                          "when-it-pays")]

AXE_FAILING_IMPACTS = {"serious", "critical"}

if CHROMIUM is None and not os.environ.get("CI"):
    pytest.skip("Debian's chromium is not installed (CI installs it)", allow_module_level=True)


@contextlib.contextmanager
def serving(folder):
    """The folder over HTTP on a free local port: its address."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def server(built_site):
    with serving(built_site) as address:
        yield address


@contextlib.contextmanager
def chromium():
    """Debian's Chromium under Playwright, in this thread."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM, "chromium must be on PATH in CI"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def open_page(browser, url, scheme):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url, wait_until="load")
    return page, errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PART_ONE + PART_TWO + PART_THREE + PART_FOUR, ids=lambda path: path or "home")
def test_pages_and_their_figures_render(browser, server, path, scheme):
    page, errors = open_page(browser, server + path, scheme)
    figures = page.locator(".pg-figure svg")
    for index in range(figures.count()):
        box = figures.nth(index).bounding_box()
        assert box["width"] > 300 and box["height"] > 60
        # 13 px text in an 800-unit-wide figure must stay at least 11 px on the page
        assert 13 * box["width"] / 800 >= 11
        assert figures.nth(index).locator("g > title").count() > 0
    assert "--8&lt;--" not in page.content()  # every include was resolved, the figures' SVG included
    if path == PAGE:
        assert figures.count() >= 2
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"first-trace-{scheme}.png"), full_page=True)
    assert errors == []
    page.close()


# Only colour rules can tell one scheme from the other; the rest (names, roles, landmarks) are checked once.
AXE_COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_violations(page, where, rules=None):
    """One line per serious or critical axe violation on an open page; of ``rules`` alone when given."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    results = Axe().run(page, options=options).response["violations"]
    return [f"{where}: {violation['id']} at {' '.join(node['target'])}"
            for violation in results
            if violation["impact"] in AXE_FAILING_IMPACTS
            for node in violation["nodes"]]


def site_paths():
    """The address of every page the site builds from docs/, and the 404 page."""
    paths = []
    for path in (ROOT / "docs").rglob("*.md"):
        page = path.relative_to(ROOT / "docs")
        if page.parts[0] not in ("generated", "traces"):
            folder = page.parent if page.stem == "index" else page.with_suffix("")
            paths.append("" if folder == Path(".") else f"{folder.as_posix()}/")
    return sorted(paths) + ["404.html"]


def axe_pages(server, queue, found):
    """Take pages off ``queue`` until it is empty and check each in the light scheme, then, after the reader's
    own switch in the header, in the dark one. Each thread has a browser of its own: axe's contrast rule takes
    seconds a page."""
    with chromium() as launched:
        while True:
            try:
                path = queue.get_nowait()
            except Empty:
                return
            page, _ = open_page(launched, server + path, "light")
            lines = axe_violations(page, f"{path or 'home'} (light)")
            page.locator('label[title="Switch to the dark scheme"]').click()
            page.wait_for_selector('body[data-md-color-scheme="slate"]')
            # The switch's own tooltip fades in under the pointer: colours are measured once they are at rest.
            page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
            lines += axe_violations(page, f"{path or 'home'} (dark)", AXE_COLOUR_RULES)
            page.close()
            found[path] = lines


def axe_over(server, paths, browsers=2):
    """{page: its violations} for ``paths``, checked by ``browsers`` threads at once. Playwright's sync API
    takes a thread of its own, beside the module's browser."""
    queue, found = Queue(), {}
    for path in paths:
        queue.put(path)
    with ThreadPoolExecutor(max_workers=browsers) as pool:
        for done in [pool.submit(axe_pages, server, queue, found) for _ in range(browsers)]:
            done.result()
    return found


@pytest.fixture(scope="module")
def axe_results(server):
    """Every page's violations, checked once for the module."""
    return axe_over(server, site_paths())


def test_every_page_is_checked():
    assert {"", "reference/api/", "torch-compile/fusion/", "404.html"} <= set(site_paths())
    assert all(path.endswith(("/", ".html")) for path in site_paths() if path)


def test_axe_finds_a_contrast_mistake_of_the_dark_scheme_alone(built_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    css = site / "assets" / "figures.css"
    css.write_text(css.read_text() + '\n[data-md-color-scheme="slate"] .md-typeset p { color: #3a3a3a; }\n')
    with serving(site) as address:
        found = axe_over(address, ["basics/"], browsers=1)
    assert found["basics/"] and all(line.startswith("basics/ (dark): color-contrast") for line in found["basics/"])


@pytest.mark.parametrize("path", site_paths(), ids=lambda path: path or "home")
def test_axe_finds_no_serious_violation_in_either_scheme(axe_results, path):
    assert axe_results[path] == [], "\n" + "\n".join(axe_results[path])


def test_the_search_dialog_has_a_name_and_a_wide_table_takes_focus(browser, server):
    page, errors = open_page(browser, server + "reading-output/gpu-waits/", "light")
    assert page.get_attribute('.md-search[role="dialog"]', "aria-label") == "Search"
    wide = page.evaluate("() => [...document.querySelectorAll('.md-typeset__scrollwrap')]"
                         ".filter(box => box.scrollWidth > box.clientWidth).map(box => box.tabIndex)")
    assert wide and set(wide) == {0}
    assert errors == []
    page.close()


def test_figures_follow_the_scheme(browser, server):
    colours = {}
    for scheme in ("light", "dark"):
        page, _ = open_page(browser, server + PAGE, scheme)
        colours[scheme] = page.evaluate(
            "() => getComputedStyle(document.querySelector('.pg-figure svg .pg-bg')).fill")
        page.close()
    assert colours["light"] != colours["dark"]


def perfetto_trace(browser, server, path):
    """The URL the first Perfetto button on a page hands over, and what the site serves there."""
    page, _ = open_page(browser, server + path, "light")
    button = page.locator("button.pg-perfetto").first
    trace_url = page.evaluate(
        "(path) => new URL(path, new URL(JSON.parse(document.getElementById('__config').textContent).base + '/', "
        "location.href)).href", button.get_attribute("data-trace"))
    response = page.request.get(trace_url)
    served = response.body() if response.status == 200 else None
    page.close()
    return trace_url, served


def test_perfetto_button_points_at_a_trace_the_site_serves(browser, server):
    _, served = perfetto_trace(browser, server, PAGE)
    assert served[:2] == b"\x1f\x8b"


def test_a_real_traces_perfetto_button_points_at_the_trace_the_site_serves(browser, server):
    url, served = perfetto_trace(browser, server, "reading-output/gpu-waits/")
    assert url.endswith("/traces/a100_nccl_2rank_rank0.json.gz") and served[:2] == b"\x1f\x8b"


@pytest.mark.parametrize("path", PART_TWO + PART_THREE + PART_FOUR)
def test_at_a_phones_width_only_tables_code_and_figures_scroll_sideways(browser, server, path):
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(server + path, wait_until="load")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    # A figure keeps its text readable (13 units of an 800-unit-wide figure, near 10 px) and scrolls in its box.
    widths = page.evaluate("() => [...document.querySelectorAll('.pg-figure svg')].map(s => "
                           "s.getBoundingClientRect().width)")
    assert all(13 * width / 800 >= 10 for width in widths), widths
    # A box that scrolls sideways takes keyboard focus, so arrow keys can scroll it (docs/assets/accessibility.js).
    unfocusable = page.evaluate("() => [...document.querySelectorAll('.pg-figure, .md-typeset__scrollwrap')]"
                                ".filter(box => box.scrollWidth > box.clientWidth && box.tabIndex !== 0).length")
    assert unfocusable == 0
    page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_checked_sentence_shows_its_mark_and_what_was_measured(browser, server, scheme):
    """basics/ has both kinds of mark: a tick on a CPU recording, and a GPU prediction beside a CPU stand-in.
    Focusing a mark shows its tooltip; following it opens the page's list of checked sentences at its row."""
    page, errors = open_page(browser, server + "basics/", scheme)
    for kind, label in (("holds", "✓"), ("waits", "waits for a GPU run")):
        mark = page.locator(f"a.claim-mark.claim-{kind}").first
        assert mark.is_visible() and mark.inner_text() == label
        box = mark.bounding_box()
        assert box["width"] > 4 and box["height"] > 4
        mark.focus()
        # The last mark's tooltip may still be fading out: wait for this one's.
        said = "Checked:" if kind == "holds" else "Not checked yet"
        page.locator(".md-tooltip2--active", has_text=re.compile(f"^{said}")).wait_for()
    anchor = mark.get_attribute("href")
    mark.click()
    row = page.locator("tr", has=page.locator(f"span[id='{anchor[1:]}']"))
    row.wait_for()
    assert page.locator("details.abstract").first.get_attribute("open") is not None and row.is_visible()
    assert errors == []
    page.close()
