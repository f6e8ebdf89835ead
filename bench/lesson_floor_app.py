"""bench.lesson's floor: a bare Streamlit app showing a lesson's steps as only each step's
progress bar, its Next button and its figures (the explorer's own, as its pages compose them,
written to BENCH_FLOOR_FIGURES by bench.lesson), one page per step, so that a Next switches
page as the explorer's does. Started by bench.lesson; not a benchmark of its own."""

import json
import os
from pathlib import Path

import plotly.io as pio
import streamlit as st

STEPS = sorted(Path(os.environ["BENCH_FLOOR_FIGURES"]).glob("step-*.json"), key=lambda p: int(p.stem[5:]))
OF = int(os.environ["BENCH_FLOOR_OF"])  # the lesson's steps (a quick run draws its first two)


@st.cache_resource
def figures(path: Path) -> list:
    return [pio.from_json(text) for text in json.loads(path.read_text())]


def step_page(number: int, path: Path):
    def body() -> None:
        st.progress(number / OF, text=f"step {number} of {OF}")
        st.button("Next", on_click=st.session_state.update, kwargs={"go": number + 1})
        for figure in figures(path):
            st.plotly_chart(figure)

    return body


pages = [
    st.Page(step_page(n, path), title=f"Step {n}", url_path=f"step{n}", default=n == 1)
    for n, path in enumerate(STEPS, 1)
]
navigation = st.navigation(pages)
if (go := st.session_state.pop("go", None)) is not None and go <= len(pages):
    st.switch_page(pages[go - 1])
navigation.run()
