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
import time
import traceback
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Empty, Queue

import pytest

from tests.helpers import ROOT
from tests.site_nav import built_page, nav_pages

CHROMIUM = shutil.which("chromium")
SCREENSHOTS = ROOT / "test-output"
PAGE = "basics/first-trace/"

AXE_FAILING_IMPACTS = {"serious", "critical"}
pytestmark = pytest.mark.browser

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
    """The address of every page the site builds from docs/ (its Markdown and, through mkdocs-jupyter, its
    Python notebook), and the 404 page."""
    paths = []
    for path in [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.py")]:
        page = path.relative_to(ROOT / "docs")
        if page.parts[0] not in ("generated", "traces"):
            folder = page.parent if page.stem == "index" else page.with_suffix("")
            paths.append("" if folder == Path(".") else f"{folder.as_posix()}/")
    return sorted(paths) + ["404.html"]


def switch_to_dark(page):
    """The reader's own switch in the header, and its tooltip at rest."""
    page.locator('label[title="Switch to the dark scheme"]').click()
    page.wait_for_selector('body[data-md-color-scheme="slate"]')
    # The switch's own tooltip fades in under the pointer: colours are measured once they are at rest.
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")


# Each figure's drawn box and the number of its parts that have a title (their tooltip).
FIGURES = """() => [...document.querySelectorAll(".pg-figure svg")].map((svg) => {
  const box = svg.getBoundingClientRect();
  return {width: box.width, height: box.height, titles: svg.querySelectorAll("g > title").length};
})"""


def rendered(page, path, scheme, errors):
    """What the render checks look at on an open page: its figures, whether an include was left unresolved, and
    the console's errors so far. The page on which a reader first meets a trace is kept as a screenshot."""
    if path == PAGE:
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"first-trace-{scheme}.png"), full_page=True)
    return {"figures": page.evaluate(FIGURES), "unresolved": "--8&lt;--" in page.content(), "errors": list(errors)}


def resize(page, width):
    """The viewport ``width`` px wide, once the page has had its resize event and drawn a frame after it."""
    page.evaluate("() => { window.pgResized = new Promise((done) => addEventListener('resize', done, {once: true})); }")
    page.set_viewport_size({"width": width, "height": 900})
    page.evaluate("(width) => window.pgResized.then(() => new Promise((done) => requestAnimationFrame(() => "
                  "requestAnimationFrame(done)))).then(() => { if (innerWidth !== width) throw innerWidth; })", width)


def visit(browser, server, path):
    """Everything the tests ask of one page, on one load of it: the render checks and axe in the light scheme;
    after the reader's switch, axe's colour rules and the render checks in the dark one; then ``LAYOUT`` at
    1280 px and, the window narrowed, at 390 px, its collapsed blocks opened. Any exception is kept as text
    (the page's tests fail with it; the other pages' go on)."""
    where = path or "home"
    try:
        page, errors = open_page(browser, server + path, "light")
        try:
            seen = {"light": rendered(page, path, "light", errors)}
            seen["axe"] = axe_violations(page, f"{where} (light)")
            switch_to_dark(page)
            seen["axe"] += axe_violations(page, f"{where} (dark)", AXE_COLOUR_RULES)
            seen["dark"] = rendered(page, path, "dark", errors)
            page.evaluate(OPEN_BLOCKS)
            for width in (1280, 390):
                if width != 1280:
                    resize(page, width)
                seen[width] = layout_now(page)
                seen[width]["errors"] = list(errors)
            return seen
        finally:
            page.close()
    except Exception:  # reported by each of the page's tests
        return {"crash": traceback.format_exc()}


def crawl_pages(server, queue, found):
    """Take pages off ``queue`` until it is empty and ``visit`` each. Each thread has a browser of its own: axe's
    contrast rule takes seconds a page."""
    with chromium() as launched:
        while True:
            try:
                path = queue.get_nowait()
            except Empty:
                return
            found[path] = visit(launched, server, path)


def crawl(server, paths, browsers=2):
    """{page: what ``visit`` saw} for ``paths``, visited by ``browsers`` threads at once. Playwright's sync API
    takes a thread of its own, beside the module's browser."""
    queue, found = Queue(), {}
    for path in paths:
        queue.put(path)
    with ThreadPoolExecutor(max_workers=browsers) as pool:
        for done in [pool.submit(crawl_pages, server, queue, found) for _ in range(browsers)]:
            done.result()
    return found


def axe_over(server, paths, browsers=2):
    """{page: its violations} for ``paths``, in either scheme, as the site's crawl finds them."""
    found = crawl(server, paths, browsers)
    for seen in found.values():
        assert "crash" not in seen, seen["crash"]
    return {path: seen["axe"] for path, seen in found.items()}


@pytest.fixture(scope="module")
def site_crawl(server):
    """Every page, visited once for the module."""
    return crawl(server, site_paths())


def seen_on(site_crawl, path):
    seen = site_crawl[path]
    assert "crash" not in seen, f"{path or 'home'}: the crawl failed\n{seen.get('crash')}"
    return seen


def test_every_page_is_checked():
    assert {"", "reference/api/", "torch-compile/fusion/", "reference/analyse-in-python/", "404.html"} <= set(
        site_paths())
    # Every page of the nav: the crawl and the nav find the pages each their own way.
    assert {built_page(page).removesuffix("index.html") for page in nav_pages()} <= set(site_paths())
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
def test_axe_finds_no_serious_violation_in_either_scheme(site_crawl, path):
    found = seen_on(site_crawl, path)["axe"]
    assert found == [], "\n" + "\n".join(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", site_paths(), ids=lambda path: path or "home")
def test_pages_and_their_figures_render(site_crawl, path, scheme):
    """In the light scheme as loaded, then in the dark one after the reader's switch, on the same page."""
    seen = seen_on(site_crawl, path)[scheme]
    for box in seen["figures"]:
        assert box["width"] > 300 and box["height"] > 60
        # 13 px text in an 800-unit-wide figure must stay at least 11 px on the page
        assert 13 * box["width"] / 800 >= 11
        assert box["titles"] > 0
    assert not seen["unresolved"]  # every include was resolved, the figures' SVG included
    if path == PAGE:
        assert len(seen["figures"]) >= 2
        assert (SCREENSHOTS / f"first-trace-{scheme}.png").stat().st_size > 0
    assert seen["errors"] == []


def test_the_search_dialog_has_a_name(browser, server):
    page, errors = open_page(browser, server + "reading-output/gpu-waits/", "light")
    assert page.get_attribute('.md-search[role="dialog"]', "aria-label") == "Search"
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


# Every collapsed block opened: a table inside one has no width until then.
OPEN_BLOCKS = "() => document.querySelectorAll('details').forEach((block) => { block.open = true; })"
# The line that says a table scrolls follows the blocks' toggle events, which come a task later.
CUES_IN_PLACE = ("() => [...document.querySelectorAll('.md-typeset__scrollwrap')]"
                 ".every((box) => box.scrollWidth <= box.clientWidth"
                 " || box.previousElementSibling?.classList.contains('pg-scroll-cue'))")
# Each figure's drawn width against its column, with its full-size link; each table's wrapper that scrolls
# sideways, with whether the line above it that says so is visible and whether it takes focus.
LAYOUT = """() => {
  const shown = (element) => !!element && element.getBoundingClientRect().width > 0;
  const figures = [...document.querySelectorAll(".pg-figure")].map((box) => {
    const link = box.nextElementSibling?.querySelector("a.pg-full-size");
    return {drawn: box.querySelector("svg").getBoundingClientRect().width, column: box.clientWidth,
            link: link?.href, linkShown: shown(link)};
  });
  const tables = [...document.querySelectorAll(".md-typeset__scrollwrap")]
    .filter((box) => box.scrollWidth > box.clientWidth)
    .map((box) => {
      const cue = box.previousElementSibling;
      return {wide: box.scrollWidth, column: box.clientWidth, focusable: box.tabIndex === 0,
              header: [...box.querySelectorAll("th")].map((cell) => cell.textContent.trim()).join(" | "),
              cue: cue?.classList.contains("pg-scroll-cue") && shown(cue)};
    });
  return {page: document.documentElement.scrollWidth, figures, tables};
}"""


def layout_now(page):
    """``LAYOUT`` of an open page whose collapsed blocks are opened, once its cues are in place."""
    from playwright.sync_api import TimeoutError as Timeout

    with contextlib.suppress(Timeout):  # a table left without its cue is reported below
        page.wait_for_function(CUES_IN_PLACE, timeout=5000)
    return page.evaluate(LAYOUT)


def layout_problems(found, path, width):
    """What keeps a reader at ``width`` px from seeing a figure or a table whole, or from knowing that it
    scrolls: one line each."""
    lines = [f"{path}: the page scrolls sideways ({found['page']} px)"] if found["page"] > width else []
    for figure in found["figures"]:
        if figure["drawn"] > figure["column"] + 0.5:
            lines.append(f"{path}: a figure {figure['drawn']:.0f} px wide in a {figure['column']} px column")
        if width < 640 and not figure["linkShown"]:
            lines.append(f"{path}: a figure without a visible full-size link")
    for table in found["tables"]:
        if width >= 1280:
            lines.append(f"{path}: a table {table['wide']} px wide in {table['column']} px ({table['header']})")
        elif not (table["cue"] and table["focusable"]):
            lines.append(f"{path}: a table that scrolls with no visible cue, or no focus ({table['header']})")
    return lines


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("path", site_paths(), ids=lambda path: path or "home")
def test_every_figure_and_table_is_seen_whole_or_says_that_it_scrolls(site_crawl, path, width):
    """At a phone's width every figure is drawn whole in its column, with a link to it at full size; a table
    wider than the page says so above it and takes focus. At 1280 px no table needs to scroll at all. The page
    is seen at 1280 px, then narrowed to 390; no error reached its console meanwhile."""
    found = seen_on(site_crawl, path)[width]
    problems = layout_problems(found, path or "home", width)
    assert problems == [], "\n" + "\n".join(problems)
    assert found["errors"] == []


@pytest.mark.parametrize("width", [390, 1280])
def test_the_figures_link_to_their_full_size_and_wide_tables_say_that_they_scroll(site_crawl, width):
    links, cues = set(), 0
    for path in site_paths():
        found = seen_on(site_crawl, path)[width]
        links |= {figure["link"] for figure in found["figures"] if figure["link"]}
        cues += sum(table["cue"] for table in found["tables"])
    assert len(links) >= 20
    if width < 640:
        assert cues > 0  # the rank and kernel tables, at least, are wider than a phone
    for link in sorted(links)[:3] + sorted(links)[-3:]:
        with urllib.request.urlopen(link) as response:
            assert response.read()[:4] == b"<svg", link


def test_on_a_phone_the_cheat_sheet_reads_row_by_row(browser, server):
    """Its five columns of sentences reflow: each row a block, each cell under its column's heading."""
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto(server + "reading-output/cheat-sheet/", wait_until="load")
    cells = page.evaluate("() => [...document.querySelectorAll('.pg-reflow tbody tr:first-child td')].map((cell) => "
                          "[getComputedStyle(cell).display, getComputedStyle(cell, '::before').content])")
    headings = page.evaluate("() => [...document.querySelectorAll('.pg-reflow thead th')].slice(0, 5)"
                             ".map((cell) => cell.textContent.trim())")
    page.close()
    assert headings[0] == "If the trace shows…" and len(cells) >= 5  # the rules' table comes first
    assert [display for display, _ in cells[:5]] == ["block"] * 5
    assert [label for _, label in cells[:5]] == [f'"{heading}"' for heading in headings]


# Counts the page's intervals that are still running: the Perfetto button's ping must not outlive its use.
COUNT_INTERVALS = """
window.liveIntervals = new Set();
const setIntervalAsGiven = window.setInterval, clearIntervalAsGiven = window.clearInterval;
window.setInterval = (...args) => { const id = setIntervalAsGiven(...args); window.liveIntervals.add(id); return id; };
window.clearInterval = (id) => { window.liveIntervals.delete(id); clearIntervalAsGiven(id); };
"""


def pinging(page):
    """Wait (in real time: the page's timers are the test's clock) until the page's one ping has started, once
    the button has fetched its trace."""
    for _ in range(200):
        if page.evaluate("() => window.liveIntervals.size") == 1:
            return
        time.sleep(0.05)
    raise AssertionError("the Perfetto button started no ping")


def test_the_perfetto_button_says_when_perfetto_cannot_be_reached_and_stops_its_ping(browser, server):
    """Perfetto cannot be reached from here (no network): the button's ping gives up and says so in a live region.
    A second hand-off stops as soon as its tab is closed. No interval is left running after either."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.clock.install()  # first: the count wraps the clock's own timers
    page.add_init_script(COUNT_INTERVALS)
    page.goto(server + PAGE, wait_until="load")
    button = page.locator("button.pg-perfetto").first
    status = page.locator("button.pg-perfetto + .pg-perfetto-status").first
    assert status.get_attribute("aria-live") == "polite" and status.get_attribute("role") == "status"
    with page.expect_popup() as opened:
        button.click()
    pinging(page)
    page.clock.run_for(30_000)
    assert page.evaluate("() => window.liveIntervals.size") == 0
    assert "cannot be reached" in status.inner_text() and status.is_visible()
    with page.expect_popup() as second:
        button.click()
    pinging(page)
    second.value.close()
    page.clock.run_for(200)
    assert page.evaluate("() => window.liveIntervals.size") == 0
    assert "closed" in status.inner_text()
    opened.value.close()
    context.close()


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
