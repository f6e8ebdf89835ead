"""The geometry core against brute force in float64: the mean cosine over every pair and each
dimension's share of it, each geometry's rows against an explicit numpy (and scikit-learn)
transform, and the scores and top 10 under each geometry against a ranking of the explicitly
transformed table."""

from __future__ import annotations

import numpy as np
import pytest

from bert_embeddings.analysis import geometry
from bert_embeddings.errors import OutOfRangeError, ZeroVectorError
from testkit import brute


def anisotropic_table(rows: int = 300, hidden: int = 16, seed: int = 0) -> np.ndarray:
    """Rows sharing one common direction and one "rogue" dimension, plus a row of zeros."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((rows, hidden)) + 2.0
    table[:, 3] += 8.0  # a rogue dimension
    table[7] = 0.0
    return table.astype(np.float32)


def brute_mean_cosine(table: np.ndarray) -> tuple[float, np.ndarray]:
    w = table.astype(np.float64)
    norms = np.linalg.norm(w, axis=1)
    unit = w / np.where(norms > 0, norms, 1)[:, None]
    n = len(w)
    cosines = unit @ unit.T
    mean = (cosines.sum() - np.trace(cosines)) / (n * (n - 1))
    per_dimension = np.array(
        [
            (np.outer(unit[:, k], unit[:, k]).sum() - (unit[:, k] ** 2).sum()) / (n * (n - 1))
            for k in range(w.shape[1])
        ]
    )
    return mean, per_dimension


@pytest.mark.parametrize("seed", [0, 1])
def test_the_mean_cosine_and_each_dimensions_share_equal_brute_force(seed):
    table = anisotropic_table(seed=seed)
    found = geometry.anisotropy(table)
    mean, per_dimension = brute_mean_cosine(table)
    # float32 products within each block of rows, float64 sums: within 1e-6 of float64 throughout
    assert found.mean_cosine == pytest.approx(mean, abs=1e-6)
    np.testing.assert_allclose(found.contributions, per_dimension, atol=1e-6)
    assert mean == pytest.approx(per_dimension.sum(), abs=1e-12)  # the shares make up the mean
    assert found.top(1)[0] == 3  # the rogue dimension leads


@pytest.mark.slow("brute force over the whole vocabulary")
def test_the_bundled_models_mean_cosine_equals_brute_force(bundled):
    table = np.asarray(bundled.tables.word_embeddings[:2000])
    found = geometry.anisotropy(table)
    mean, per_dimension = brute_mean_cosine(table)
    assert found.mean_cosine == pytest.approx(mean, abs=1e-6)
    np.testing.assert_allclose(found.contributions, per_dimension, atol=1e-6)
    assert geometry.anisotropy(table.astype(np.float64)).mean_cosine == pytest.approx(mean, abs=1e-12)


def explicit(table: np.ndarray, name: str, removed: int = 0) -> np.ndarray:
    """Each geometry's rows, written out with numpy and scikit-learn."""
    return brute.transformed(table, name, removed)


CASES = [("raw", 0), ("centred", 0), ("all-but-the-top", 1), ("all-but-the-top", 5), ("standardised", 0)]


@pytest.mark.parametrize("name, removed", CASES)
def test_each_geometrys_rows_equal_an_explicit_transform(name, removed):
    table = anisotropic_table()
    fitted = geometry.fit(table, name, removed)
    expected = explicit(table, name, removed)
    np.testing.assert_allclose(fitted.transform(table), expected, atol=1e-9)
    np.testing.assert_allclose(fitted.norms, np.linalg.norm(expected, axis=1), atol=1e-9)


@pytest.mark.parametrize("name, removed", CASES)
def test_scores_and_top_10_equal_a_ranking_of_the_transformed_table(name, removed):
    table = anisotropic_table(rows=500, hidden=24, seed=4)
    fitted = geometry.fit(table, name, removed)
    rows = explicit(table, name, removed)
    norms = np.linalg.norm(rows, axis=1)
    unit = rows / np.where(norms > 0, norms, 1)[:, None]
    for query in (0, 42, 499):
        expected = unit @ unit[query]
        got = geometry.scores(table, fitted, table[query])
        np.testing.assert_allclose(got, expected, atol=2e-6)
        ranking = np.lexsort((np.arange(len(expected)), -expected))[:10]
        assert np.lexsort((np.arange(len(got)), -got))[:10].tolist() == ranking.tolist()


def structured_table(rows: int = 600, hidden: int = 24, seed: int = 9) -> np.ndarray:
    """Rows with 9 well-separated directions of variance (so that PCA's components are well
    defined in every geometry), a common offset and a rogue dimension."""
    rng = np.random.default_rng(seed)
    directions = np.linalg.qr(rng.standard_normal((hidden, 9)))[0].T  # (9, hidden) orthonormal
    latent = rng.standard_normal((rows, 9)) * np.array([9, 7.5, 6, 5, 4, 3.2, 2.5, 2, 1.6])
    table = latent @ directions + 0.1 * rng.standard_normal((rows, hidden)) + 2.0
    table[:, 3] += 8.0
    return table.astype(np.float32)


@pytest.mark.parametrize("name, removed", CASES)
def test_pca_in_a_geometry_equals_scikit_learns_on_the_transformed_rows(name, removed):
    """The Maps page's PCA in a geometry: components, shares and every row's coordinates equal
    scikit-learn's PCA of the explicitly transformed table (signs by the same rule); and the
    rows the t-SNE worker is given are the explicit transform's, in float32."""
    from sklearn.decomposition import PCA

    table = structured_table()
    fitted = geometry.fit(table, name, removed)
    rows = explicit(table, name, removed)
    basis, coords = geometry.pca(table, fitted, 5)
    reference = PCA(5).fit(rows)
    np.testing.assert_allclose(basis.components, reference.components_, atol=1e-6)
    np.testing.assert_allclose(basis.explained_variance_ratio, reference.explained_variance_ratio_, atol=1e-6)
    np.testing.assert_allclose(coords, reference.transform(rows), atol=1e-4 * np.abs(rows).max())
    np.testing.assert_allclose(geometry.transformed_table(table, fitted), rows.astype(np.float32), atol=1e-5)


def test_what_the_maps_page_says_of_pca_in_each_geometry():
    """'PCA centres the rows itself, so raw and centred draw the same PCA map, and all-but-the-top
    D shows raw's components D+1 onward.'"""
    table = structured_table()
    _, raw = geometry.pca(table, geometry.fit(table, "raw"), 8)
    _, centred = geometry.pca(table, geometry.fit(table, "centred"), 8)
    np.testing.assert_allclose(centred, raw, atol=1e-4)
    _, top = geometry.pca(table, geometry.fit(table, "all-but-the-top", 3), 5)
    np.testing.assert_allclose(top, raw[:, 3:8], atol=1e-4)


@pytest.mark.parametrize(
    "removed, rows, problem",
    [(0, 300, "1 to 20"), (21, 300, "1 to 20"), (2.5, 300, "1 to 20"), (10, 8, "too few to remove 10")],
)
def test_a_bad_number_of_directions_gets_a_message(removed, rows, problem):
    with pytest.raises(OutOfRangeError, match=problem):
        geometry.fit(anisotropic_table(rows=rows), "all-but-the-top", removed)


def test_a_dimension_with_no_variance_cannot_be_standardised():
    table = anisotropic_table()
    table[:, 5] = 0.25
    with pytest.raises(ZeroVectorError, match="Dimension 5 has the same value in every row"):
        geometry.fit(table, "standardised")
    with pytest.raises(OutOfRangeError, match="not a geometry"):
        geometry.fit(table, "sphered")


def test_geometries_that_cannot_be_fitted_are_left_out_with_their_reason():
    """The lab fits all four at once: a flat dimension and a D beyond the rank leave out only
    their own geometry, with the message the single fit would raise."""
    table = anisotropic_table(rows=12)
    table[:, 5] = 0.25
    problems = {}
    fitted = geometry.fit_all(table, 15, problems=problems)
    assert set(fitted) == {"raw", "centred"}
    assert "Dimension 5 has the same value in every row" in problems["standardised"]
    assert "too few to remove 15 directions" in problems["all-but-the-top"]
    np.testing.assert_allclose(fitted["centred"].transform(table), explicit(table, "centred"), atol=1e-9)


@pytest.mark.slow("the encoder on every piece of the vocabulary")
def test_the_layer_output_of_every_piece_is_the_modules_and_its_mean_cosine_is_exact(bundled):
    """The LayerNorm output of vocabulary pieces alone at position 1, segment A, equals the
    model's own embedding module; its mean cosine, made a block at a time, equals brute force."""
    import torch

    from bert_embeddings.analysis import decompose

    module = decompose.build_reference_module(bundled)
    ids = torch.arange(0, 3000)[:, None]
    with torch.inference_mode():
        expected = module(
            input_ids=ids, token_type_ids=torch.zeros_like(ids), position_ids=torch.ones_like(ids)
        )[:, 0].numpy()
    outputs = decompose.vocabulary_outputs(bundled, 0, 3000)
    assert np.max(np.abs(outputs - expected)) <= 1e-5
    found = geometry.anisotropy_in_blocks(lambda a, b: decompose.vocabulary_outputs(bundled, a, b), 3000, 384)
    mean, per_dimension = brute_mean_cosine(expected)
    assert found.mean_cosine == pytest.approx(mean, abs=1e-6)
    np.testing.assert_allclose(found.contributions, per_dimension, atol=1e-6)


def test_a_pca_map_is_keyed_as_its_geometry_but_centred_is_raws():
    """PCA centres the rows itself: centred's map is raw's; every other geometry keeps its key."""
    assert geometry.pca_key("centred", 3) == ("raw", 0) == geometry.pca_key("raw", 5)
    assert geometry.pca_key("all-but-the-top", 3) == ("all-but-the-top", 3)
    assert geometry.pca_key("standardised", 2) == geometry.key("standardised", 2)
