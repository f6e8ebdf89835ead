"""A second download on every chart's toolbar: the chart as a PNG, beside the camera's SVG.

plotly.js has one download button, whose format comes from the config, and Streamlit sends a
chart's config as JSON, which cannot carry a button of one's own (plotly.js wants a click
function). This component, mounted once per page, puts a button beside each chart's camera that
asks the camera for a PNG: plotly.js reads the format from the chart's live config as the camera
is clicked, so the button sets PNG, clicks it and sets the config back. The file is then the
camera's own, at the chart's size and theme on screen. tests/app/test_browser.py downloads both.
"""

from __future__ import annotations

import streamlit as st

from bert_embeddings.figures import charts, toolbar

_JS = """
export default function ({ data }) {
  const pictured = (camera) => {
    const group = camera.closest(".modebar-group");
    if (!group || group.parentElement.querySelector("[data-png]")) { return; }
    // A group of its own beside the camera's (plotly.js sizes a group for its buttons), in the
    // camera's colours, which plotly.js sets on each icon (the theme's; darker under the mouse).
    const own = group.cloneNode(false);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "modebar-btn";
    button.dataset.png = "1";
    button.setAttribute("rel", "tooltip");
    button.setAttribute("data-gravity", "n");
    button.setAttribute("data-title", data.title);
    button.setAttribute("aria-label", data.title);
    button.innerHTML = data.icon;
    const path = button.querySelector("path");
    const ink = (selector) => camera.closest(".modebar").querySelector(selector)?.style.fill || "";
    const rest = () => { path.style.fill = ink(".modebar-btn:not(.active) path"); };
    rest();
    const lit = () => { path.style.fill = ink(".modebar-btn.active path") || ink("path"); };
    button.addEventListener("mouseenter", lit);
    button.addEventListener("mouseleave", rest);
    button.addEventListener("click", () => {
      const chart = camera.closest(".js-plotly-plot");
      const config = chart && chart._context;
      if (!config) { return; }
      const kept = config.toImageButtonOptions;
      config.toImageButtonOptions = Object.assign({}, kept, { format: "png" });
      try { camera.click(); } finally { config.toImageButtonOptions = kept; }
    });
    own.appendChild(button);
    group.after(own);
  };
  let due = false;
  const scan = () => {
    due = false;
    document.querySelectorAll(data.cameras).forEach(pictured);
  };
  // plotly.js draws a toolbar anew when a chart is redrawn: each new one gets its button.
  const watch = new MutationObserver(() => { if (!due) { due = true; requestAnimationFrame(scan); } });
  watch.observe(document.body, { childList: true, subtree: true });
  scan();
  return () => watch.disconnect();
}
"""
_mount = st.components.v2.component("chart_png", js=_JS)


def mount() -> None:
    """Once per page (app.py): every chart's toolbar gets its PNG button."""
    cameras = f".stPlotlyChart .modebar-btn[data-title='{charts.DOWNLOAD_TITLE}']"
    data = {"title": toolbar.PNG_TITLE, "icon": toolbar.PNG_ICON_SVG, "cameras": cameras}
    _mount(key="chart_png", data=data, height=0)
