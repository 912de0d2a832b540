// A box that scrolls sideways needs focus for a keyboard to scroll it (WCAG 2.1.1; axe's
// scrollable-region-focusable): Material's wrapper around a wide table, and a figure on a narrow screen
// (figures.css). Only boxes that scroll now join the tab order, checked again when the window is resized.
function focusScrollers() {
  for (const box of document.querySelectorAll(".md-typeset__scrollwrap, .pg-figure")) {
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
}

// document$ is Material's signal that a page's content is in place (tables already wrapped).
document$.subscribe(focusScrollers);
window.addEventListener("resize", focusScrollers);
