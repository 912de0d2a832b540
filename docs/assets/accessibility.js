// Two gaps in what Material's templates give assistive technology, and one in what they show a reader, closed
// once a page's content is in place (document$ is Material's signal for it, tables already wrapped).

// A table wider than its column scrolls sideways inside Material's wrapper, which shows no sign of it. While a
// box scrolls it says so in a line above it, and it takes focus so that a keyboard can scroll it (WCAG 2.1.1;
// axe's scrollable-region-focusable). Checked again when the window is resized and when a collapsed block opens
// (a table inside one has no width until then).
function markScrollers() {
  for (const box of document.querySelectorAll(".md-typeset__scrollwrap")) {
    const scrolls = box.scrollWidth > box.clientWidth;
    const cue = box.previousElementSibling?.classList.contains("pg-scroll-cue") ? box.previousElementSibling : null;
    if (scrolls && !cue) box.insertAdjacentHTML("beforebegin", '<p class="pg-scroll-cue">Wider than the page: scroll the table sideways →</p>');
    if (!scrolls && cue) cue.remove();
    if (scrolls) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
  // The notebook page's code cells (mkdocs-jupyter) scroll in a box of their own; like Material's code blocks,
  // one that scrolls takes focus (no line above it: code that scrolls is no surprise).
  for (const box of document.querySelectorAll(".jupyter-wrapper .highlight-ipynb")) {
    if (box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
}

// A table that reflows on a narrow screen (figures.css: .pg-reflow) labels each cell with its column's heading.
function labelReflowedCells() {
  for (const table of document.querySelectorAll(".pg-reflow table")) {
    const headings = [...table.querySelectorAll("thead th")].map((cell) => cell.textContent.trim());
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.cells].forEach((cell, index) => { cell.dataset.label = headings[index] ?? ""; });
    }
  }
}

// Material's search is a role="dialog" without a name (axe: aria-dialog-name); it takes the name of its own
// search field, so it follows the site's language.
function nameSearchDialog() {
  const dialog = document.querySelector('.md-search[role="dialog"]');
  const field = document.querySelector(".md-search__input");
  if (dialog && field && !dialog.hasAttribute("aria-label")) dialog.setAttribute("aria-label", field.getAttribute("aria-label"));
}

document$.subscribe(() => {
  labelReflowedCells();
  markScrollers();
  nameSearchDialog();
});
window.addEventListener("resize", markScrollers);
document.addEventListener("toggle", markScrollers, true); // toggle does not bubble: caught on its way down
