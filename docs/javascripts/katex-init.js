// Render the math that pymdownx.arithmatex (generic mode) leaves in the page, with the site's
// own KaTeX. Material's instant navigation swaps pages without reloading: document$ re-runs it.
function renderMath() {
  renderMathInElement(document.body, {
    delimiters: [
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: false,
  });
  fitDisplayMath();
}

// A display formula wider than the text column is scaled down to fit it (KaTeX does not break
// display math), so that the reader sees all of it without a scrollbar.
function fitDisplayMath() {
  document.querySelectorAll(".katex-display").forEach(function (display) {
    var formula = display.querySelector(".katex");
    if (!formula) { return; }
    formula.style.fontSize = "";
    var available = display.clientWidth;
    var needed = formula.scrollWidth;
    if (needed > available && available > 0) {
      formula.style.fontSize = (Math.floor(1000 * available / needed) / 10) + "%";
    }
  });
}

if (typeof document$ !== "undefined") {
  document$.subscribe(renderMath);
} else {
  document.addEventListener("DOMContentLoaded", renderMath);
}
window.addEventListener("resize", fitDisplayMath);
// KaTeX's fonts change the widths once they have loaded: fit again then
if (document.fonts) { document.fonts.ready.then(fitDisplayMath); }
