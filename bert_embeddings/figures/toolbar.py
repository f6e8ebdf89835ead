"""A chart's toolbar beyond plotly.js's own: the PNG download beside the camera's SVG.

plotly.js has one download button, whose format comes from the config (charts.CHART_CONFIG: SVG).
A second one needs a click function, which a config sent as JSON cannot carry: the pages add it
in the browser (components/parts/chart_png.py) and a handout in a script of its own (below), with
the same title and icon. Either file is drawn at the chart's size and theme on screen.
"""

from __future__ import annotations

import json

PNG_TITLE = "Download plot as a PNG (picture)"
# Material Design's "image" icon (a picture), on a 24-unit square.
PNG_ICON_PATH = (
    "M19 5v14H5V5h14m0-2H5c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h14c1.1 0 2-.9 2-2V5c0-1.1-.9-2-2-2z"
    "m-4.86 8.86-3 3.87L9 13.14 6 17h12l-3.86-5.14z"
)
PNG_ICON_SVG = (
    '<svg viewBox="0 0 24 24" height="1em" width="1em" class="icon" aria-hidden="true">'
    f'<path d="{PNG_ICON_PATH}"/></svg>'
)

# After plotly.js in a handout: every figure drawn gets the PNG button (plotly.js's public API).
_HANDOUT_SCRIPT = """
(function () {
  const draw = Plotly.newPlot;
  const png = {
    name: "png",
    title: TITLE,
    icon: { width: 24, height: 24, path: ICON },
    click: (chart) => {
      const options = Object.assign({}, chart._context.toImageButtonOptions, { format: "png" });
      return Plotly.downloadImage(chart, options);
    },
  };
  Plotly.newPlot = function (chart, data, layout, config) {
    const added = [...((config || {}).modeBarButtonsToAdd || []), png];
    return draw.call(this, chart, data, layout, Object.assign({}, config, { modeBarButtonsToAdd: added }));
  };
})();
"""
HANDOUT_PNG_BUTTON = (
    "<script>"
    + _HANDOUT_SCRIPT.replace("TITLE", json.dumps(PNG_TITLE)).replace("ICON", json.dumps(PNG_ICON_PATH))
    + "</script>"
)
