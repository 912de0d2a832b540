"""A real browser over the built site: the pages and their figures render in the light and the dark scheme.

Playwright drives Debian's Chromium (found on PATH; `.ci/run` installs it).
Screenshots are kept under test-output/ for a person to look at.
"""

import functools
import http.server
import os
import shutil
import threading

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

# axe rules that only Material's own markup breaks, each with why we leave it to Material.
AXE_ALLOWED = {
    "aria-dialog-name": "Material's search partial has role=dialog without a name; fixing it means copying the "
                        "whole partial into an override that would no longer follow Material's updates",
    "scrollable-region-focusable": "Material's JavaScript wraps wide tables in a scrolling div without tabindex; "
                                   "Chromium (130+) and Firefox make such scrollers keyboard-focusable themselves",
}
AXE_FAILING_IMPACTS = {"serious", "critical"}

if CHROMIUM is None and not os.environ.get("CI"):
    pytest.skip("Debian's chromium is not installed (CI installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def server(built_site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(built_site))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert CHROMIUM, "chromium must be on PATH in CI"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


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


def axe_violations(page, where):
    """One line per serious or critical axe violation on an open page, except the allowed rules."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page).response["violations"]
    return [f"{where}: {violation['id']} at {' '.join(node['target'])}"
            for violation in results
            if violation["impact"] in AXE_FAILING_IMPACTS and violation["id"] not in AXE_ALLOWED
            for node in violation["nodes"]]


# axe takes seconds a page: it checks a page of each kind the site has (every template, the tables, figures,
# code, admonitions, call trees, generated notes) rather than every page, to keep `make test` under 10 minutes.
AXE_PAGES = ["", "basics/first-trace/", "reading-output/table/", "reading-output/cheat-sheet/",
             "multi-gpu/straggler/", "torch-compile/in-a-trace/", "reference/explain/"]


@pytest.mark.parametrize("path", AXE_PAGES, ids=lambda path: path or "home")
def test_axe_finds_no_serious_violation_in_either_scheme(browser, server, path):
    violations = []
    for scheme in ("light", "dark"):
        page, _ = open_page(browser, server + path, scheme)
        violations += axe_violations(page, f"{path or 'home'} ({scheme})")
        page.close()
    assert violations == [], "\n" + "\n".join(violations)


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
    page.close()
