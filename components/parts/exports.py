"""Download buttons under figures and tables: every matrix as CSV and .npy, every table as CSV.

The files are built only when a button is clicked (Streamlit calls the data function then),
so a page with many figures costs nothing extra per run, and a download does not rerun it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from bert_embeddings.figures import export

if TYPE_CHECKING:  # pages that show tables import pandas; the others need not pay for it
    import pandas as pd

# A piece or a word in a file's name, as ``("neighbours of", exports.Verbatim(piece))``: spelled
# so that none of it vanishes (export.spelled).
Verbatim = export.Verbatim


def _button(
    label: str, make: Callable[[], bytes], file_name: str, mime: str, help: str, where: str = ""
) -> None:
    st.download_button(
        label,
        make,
        file_name=file_name,
        mime=mime,
        key=f"download-{where}{file_name}",
        on_click="ignore",
        type="tertiary",
        icon=":material/download:",
        help=help,
    )


def file_button(
    label: str,
    name: export.Name,
    suffix: str,
    make: Callable[[], bytes],
    mime: str,
    help: str = "",
    where: str = "",
) -> None:
    """A download of one file made on the click (a lesson, a handout), named like every other;
    ``where`` tells apart two buttons for the same file (the lesson bar's and the sidebar's)."""
    stem = export.file_stem(*export.parts_of(name))
    _button(label, make, f"{stem}.{suffix}", mime, help or export.title(name), where)


def matrix(
    name: export.Name,
    values: np.ndarray,
    rows: Sequence[object] | None = None,
    columns: Sequence[object] | None = None,
    corner: str = "",
) -> None:
    """CSV (with the row and column labels) and .npy buttons for the numbers of one figure.

    ``name`` says what the numbers are: the figure, the page, the model, and whatever else
    its numbers change with (stage, geometry, k); a piece or word in it as an
    ``export.Verbatim`` part, e.g. ``("neighbours of", export.Verbatim(piece), "(raw, k 10)")``.
    It becomes the file name (export.file_stem), so it must differ between the figures of one
    page, and a file name then stands for one set of numbers.
    """
    stem, name = export.file_stem(*export.parts_of(name)), export.title(name)
    shape = " x ".join(f"{n:,}" for n in np.shape(values))
    with st.container(horizontal=True, gap="small"):
        _button(
            "CSV",
            lambda: export.matrix_csv(values, rows, columns, corner),
            f"{stem}.csv",
            "text/csv",
            f"{name}: {shape} numbers, with labels, for a spreadsheet.",
        )
        _button(
            ".npy",
            lambda: export.matrix_npy(values),
            f"{stem}.npy",
            "application/octet-stream",
            f"{name}: {shape} numbers for numpy.load.",
        )


def dataframe(name: export.Name, frame: pd.DataFrame, shown: pd.DataFrame | None = None, **options) -> None:
    """A table on the page (``shown``, e.g. with pieces made legible; else ``frame``) and under it
    the CSV button for ``frame``: every table the app shows goes through here, so none lacks its
    download (tests/test_architecture.py checks that no page draws one otherwise)."""
    st.dataframe(frame if shown is None else shown, **options)
    table(name, frame)


def ranked(name: export.Name, found, score: str = "score", **options) -> pd.DataFrame:
    """A search's ranked pieces (``found``: its ``pieces``, ``ids`` and ``scores``, best first) as a
    table of rank, piece, id and ``score``: each piece shown legible (glyphs.legible), the
    download keeping the pieces as they are, the scores to four places on the page and in full in
    the file. Neighbours, Your own axes and Compare models each draw theirs so. Returns the table."""
    import pandas as pd

    from bert_embeddings.models import glyphs

    frame = pd.DataFrame(
        {"rank": range(1, len(found.ids) + 1), "piece": found.pieces, "id": found.ids, score: found.scores}
    )
    config = {score: st.column_config.NumberColumn(format="%.4f")}
    shown = frame.assign(piece=frame["piece"].map(glyphs.legible))
    dataframe(name, frame, shown, hide_index=True, column_config=config, **options)
    return frame


def matrix_dataframe(
    name: export.Name, values: np.ndarray, rows: Sequence[object], columns: Sequence[object], **options
) -> None:
    """A matrix shown as a table, with its CSV and .npy buttons."""
    import pandas as pd

    st.dataframe(pd.DataFrame(values, index=rows, columns=columns), **options)
    matrix(name, values, rows, columns)


def table(name: export.Name, frame: pd.DataFrame) -> None:
    """A CSV button for one table, exactly as shown (the numbers at full precision); ``name`` as
    for ``matrix``."""
    stem, name = export.file_stem(*export.parts_of(name)), export.title(name)
    _button(
        "CSV",
        lambda: frame.to_csv(index=False).encode("utf-8"),
        f"{stem}.csv",
        "text/csv",
        f"{name}: {len(frame):,} rows.",
    )
