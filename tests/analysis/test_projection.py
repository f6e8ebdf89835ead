"""PCA against scikit-learn: same projections up to each component's sign, same variance ratios."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import PCA

from bert_embeddings.analysis import decompose, projection
from bert_embeddings.errors import OutOfRangeError


def structured(rows, hidden, seed):
    """Random data with distinct variances along random directions, plus a common offset."""
    rng = np.random.default_rng(seed)
    scales = np.geomspace(3.0, 0.05, hidden)
    rotation, _ = np.linalg.qr(rng.standard_normal((hidden, hidden)))
    return ((rng.standard_normal((rows, hidden)) * scales) @ rotation + 0.7).astype(np.float32)


def assert_matches_sklearn(rows, n_components=10, atol=1e-4):
    ours = projection.fit(rows, n_components)
    reference = PCA(n_components, svd_solver="full").fit(rows.astype(np.float64))
    np.testing.assert_allclose(ours.explained_variance_ratio, reference.explained_variance_ratio_, rtol=1e-4)
    mine, theirs = projection.project(ours, rows), reference.transform(rows.astype(np.float64))
    signs = np.sign(np.sum(mine * theirs, axis=0))  # components are defined up to sign
    scale = np.abs(theirs).max()
    np.testing.assert_allclose(mine * signs, theirs, atol=atol * scale)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape", [(2000, 64), (500, 32), (30, 16)])
def test_random_data_equals_sklearn(seed, shape):
    """Projections and explained-variance ratios equal scikit-learn's on random data."""
    assert_matches_sklearn(structured(*shape, seed))


def test_signs_follow_sklearns_convention():
    """Beyond 'up to sign': components point the way scikit-learn's do."""
    rows = structured(1000, 24, 7)
    ours = projection.fit(rows, 5)
    reference = PCA(5, svd_solver="covariance_eigh").fit(rows)
    np.testing.assert_allclose(projection.project(ours, rows), reference.transform(rows), atol=1e-4)


@pytest.mark.slow("scikit-learn over the whole vocabulary")
def test_bundled_vocabulary_equals_sklearn(bundled):
    """The vocabulary map of the bundled model (30,522 x 384) equals scikit-learn's PCA."""
    assert_matches_sklearn(bundled.tables.word_embeddings)


def test_bundled_positions_equal_sklearn(bundled):
    """The position path (512 x 384) equals scikit-learn's PCA."""
    assert_matches_sklearn(bundled.tables.position_embeddings)


def test_sentence_stage_basis(bundled):
    """A basis fitted on one sentence's stage vectors (few rows) works and equals sklearn."""
    enc = bundled.encode("a short one")
    stages = decompose.stage_vectors(decompose.decompose(bundled, enc))
    rows = np.concatenate(list(stages.values()))  # (4 x 5 tokens, 384)
    assert_matches_sklearn(rows, n_components=10)
    assert projection.fit(rows[:4]).n_components == 3  # no more components than rows - 1


def test_component_numbers_are_checked():
    """Axes take components 1..n, each once; anything else is a named error."""
    basis = projection.fit(structured(100, 8, 0), 5)
    assert projection.check_components(basis, 1, 2, 5) == (0, 1, 4)
    for bad in [(0, 1), (1, 6), (2, 2), (-1, 3)]:
        with pytest.raises(OutOfRangeError):
            projection.check_components(basis, *bad)
