// Two gaps in what Material's templates give assistive technology, closed once a page's content is in place
// (document$ is Material's signal for it, tables already wrapped).

// A box that scrolls sideways needs focus for a keyboard to scroll it (WCAG 2.1.1; axe's
// scrollable-region-focusable): Material's wrapper around a wide table, and a figure on a narrow screen
// (figures.css). Only boxes that scroll now join the tab order, checked again when the window is resized.
function focusScrollers() {
  for (const box of document.querySelectorAll(".md-typeset__scrollwrap, .pg-figure")) {
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
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
  focusScrollers();
  nameSearchDialog();
});
window.addEventListener("resize", focusScrollers);
