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
}

if (typeof document$ !== "undefined") {
  document$.subscribe(renderMath);
} else {
  document.addEventListener("DOMContentLoaded", renderMath);
}
