"""Shared fixtures: the bundled model, and tiny random BERT checkpoints written to disk.

Tiny checkpoints are built from a config inside the tests (as bertviz and whatlies do) so
that the decomposition is checked on more than one set of weights, quickly and offline.
They reuse the bundled model's tokenizer files, so ids are real bert-base-uncased ids.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from testkit.random_models import write_random_bert
from testkit.stand_in_hub import go_offline

# No test reaches the real Hub: the tests that exercise Hub code point huggingface_hub at
# servers on 127.0.0.1, or set HF_HUB_OFFLINE (testkit/stand_in_hub.py: use_hub, go_offline).
# Telemetry would be one more request.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# Rooms opened by this run's tests are kept in a file of its own (never the user's cache folder);
# each server a test starts gets its own file too (testkit/browser.py), unless it names one.
os.environ.setdefault("BERT_EXPLORER_ROOMS", str(Path(tempfile.mkdtemp(prefix="rooms-")) / "rooms.sqlite3"))
# A test run keeps both cores busy (two test processes, their servers and browsers): background
# work at SCHED_IDLE, the app's default, would wait for an idle moment that never comes. The
# tests of that priority itself (tests/maps/test_neighbour_map.py, test_prepare_command.py) run
# their work with the setting unset.
os.environ.setdefault("BERT_EXPLORER_JOB_PRIORITY", "normal")


# --- the quick tier: `make check` runs what needs no browser, no server and no long computation ----
# `browser` is marked in each browser test's file. The tests that start a server or a background
# process (`server`), or compute for many seconds (`slow`), are named here, in one table, with
# why; tests/test_tiers.py checks that every name still names a test. A name marks each of its
# parametrisations; "*" marks the whole file. `make test` runs them all.
SERVER = {
    "tests/test_notebook.py": dict.fromkeys(
        ("test_every_cell_runs_and_no_cell_errs", "test_the_seeds_figures_are_printed_as_asserted"),
        "a Jupyter kernel runs the notebook",
    ),
    "tests/test_services.py": {"*": "Redis and HAProxy servers"},
    "tests/jobs/test_job_queue.py": {"*": "a Redis server and job worker processes"},
    "tests/rooms/test_rooms_away.py": {"*": "a Redis server stopped and started again"},
    "tests/rooms/test_room_stores.py": {
        "test_a_redis_gone_mid_workshop_pauses_rooms_and_loses_no_version_when_it_is_back": "a Redis server"
    },
    "tests/test_benchmarks.py": {
        "test_quick_benchmark_ends_with_its_documented_line": "each benchmark's process"
    },
    "tests/maps/test_prepare_command.py": {"*": "the host's command, computing maps in a process"},
    "tests/spaces/test_space_jobs.py": dict.fromkeys(
        (
            "test_a_layer_stage_is_computed_in_the_background_with_every_layer_kept",
            "test_lists_over_shared_rows_in_a_geometry_and_a_damaged_file_computed_again",
            "test_aligned_maps_are_made_in_the_background_as_in_this_process_and_kept",
        ),
        "stage spaces and aligned maps computed by worker processes",
    ),
    "tests/maps/test_neighbour_map.py": dict.fromkeys(
        (
            "test_the_map_is_the_same_under_blas_kernels_whose_threads_sum_differently",
            "test_a_map_is_computed_once_kept_on_disk_and_read_back_by_another_process",
            "test_a_damaged_or_partial_map_is_never_shown_but_computed_again",
            "test_one_map_is_computed_at_a_time_and_the_next_starts_when_it_is_done",
            "test_progress_gives_a_stage_and_an_estimate",
            "test_a_failed_job_is_known_to_everyone_until_retried_and_then_starts_again",
            "test_leftovers_older_than_a_day_are_swept_when_the_next_map_starts",
            "test_a_stopped_worker_leaves_no_copy_of_the_table_behind",
            "test_background_work_runs_at_idle_priority_unless_the_host_says_normal",
        ),
        "a map worker process",
    ),
    "tests/maps/test_maps_page.py": dict.fromkeys(
        (
            "test_progress_first_then_the_map_with_its_faithfulness",
            "test_the_page_shows_the_maps_own_numbers",
            "test_colour_by_neighbours_kept_with_labels_and_its_caption",
            "test_colour_by_hubness_and_the_table_of_the_biggest_hubs",
            "test_a_clicked_piece_is_marked_with_the_neighbours_pages_answer",
            "test_a_geometrys_t_sne_map_is_a_job_of_its_own_on_its_rows",
            "test_a_cache_folder_that_is_a_file_says_what_to_fix_and_can_be_tried_again",
            "test_a_big_vocabulary_says_what_its_map_costs_and_waits_to_be_asked",
        ),
        "the t-SNE map, computed by a worker process",
    ),
    "tests/app/test_moved.py": dict.fromkeys(
        (
            "test_two_stages_of_one_model_compared_as_the_api_compares_them",
            "test_aligned_maps_drawn_from_the_kept_files_with_each_maps_recall_and_the_step_in_the_link",
        ),
        "stage-space worker processes",
    ),
}
# Fixtures that start a server or worker processes, for every test that uses them.
SERVER_FIXTURES = {
    "redis_url": "a Redis server",
    "compared": "stage-space worker processes (tests/app/test_moved.py)",
}
SLOW = {
    "tests/app/test_hostile.py": {
        "test_hostile_link_values": "every hostile value of every link name, on its page",
        "test_hostile_text_in_every_box": "every hostile text in each box, on its page",
    },
    "tests/analysis/test_geometry_lab.py": dict.fromkeys(
        (
            "test_the_page_shows_each_geometrys_overlap_once_computed",
            "test_the_background_job_computes_each_figure_once_and_the_same",
            # (these two wait behind the overlaps the page's tests asked for, unless the two above
            # ran first and saw them through)
            "test_a_figure_that_failed_unexpectedly_or_whose_worker_died_is_computed_again",
            "test_a_session_trying_d_after_d_keeps_one_request_in_the_queue",
        ),
        "the whole vocabulary's overlaps, in every geometry",
    ),
    "tests/spaces/test_aligned.py": dict.fromkeys(
        (
            "test_each_map_states_its_brute_force_recall",
            "test_the_aligned_map_keeps_bs_faithfulness_and_lies_on_as",
            "test_between_goes_from_a_to_b",
            "test_the_same_input_gives_the_same_maps_whatever_the_threads",
        ),
        "aligned t-SNE maps of two tables",
    ),
    "tests/test_api.py": {
        "test_every_example_in_the_docstrings_runs": "the examples, a t-SNE map among them",
        "test_the_t_sne_map_is_read_from_the_apps_cache_or_computed_on_request": "t-SNE maps",
    },
    "tests/test_architecture.py": {
        "test_torch_and_blas_use_one_thread_per_call_on_the_shared_server": "two interpreters load torch"
    },
    "tests/app/test_figures_notebook.py": {"test_the_tsne_map_is_the_maps_pages": "a t-SNE map"},
    "tests/maps/test_neighbour_map.py": {
        "test_every_row_of_the_bundled_table_has_the_brute_force_list": "30,522 rows against brute force"
    },
    "tests/rooms/test_follow.py": {
        "test_settings_that_links_once_left_out_reach_followers": "every page, led and followed"
    },
    "tests/analysis/test_geometry.py": {
        "test_the_layer_output_of_every_piece_is_the_modules_and_its_mean_cosine_is_exact": (
            "the encoder on every piece of the vocabulary"
        )
    },
    "tests/lessons/test_figures.py": {
        "test_every_figure_the_builtin_lessons_show_is_that_models": (
            "every figure of the built-in lessons on two models: whole tables, stage spaces and their lists"
        ),
    },
}


def tier_reason(table: dict, path: str, name: str) -> str | None:
    """Why ``table`` names the test ``name`` of file ``path`` (None if it does not)."""
    named = table.get(path, {})
    return named.get("*") or named.get(name)


def pytest_collection_modifyitems(config, items):
    """Marks the tests the tables above name, and those using a server's fixture, or a Redis
    parametrisation of a rooms store."""
    for item in items:
        path, name = item.nodeid.split("::")[0], getattr(item, "originalname", None) or item.name
        params = getattr(getattr(item, "callspec", None), "params", {})
        server = (
            tier_reason(SERVER, path, name)
            or next((why for f, why in SERVER_FIXTURES.items() if f in item.fixturenames), None)
            or (
                "a Redis server"
                if any(isinstance(v, str) and v == "redis" for v in params.values())
                else None
            )
        )
        if server:
            item.add_marker(pytest.mark.server(server))
        if slow := tier_reason(SLOW, path, name):
            item.add_marker(pytest.mark.slow(slow))


@pytest.fixture(scope="session")
def redis_url():
    """A real Redis server (Debian's redis-server) on a free port, for this test run."""
    from testkit import services

    if services.redis_path() is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but no redis-server: scripts/ensure-services.sh installs it", pytrace=False)
        pytest.skip("no redis-server here: `make test` installs it (needs root and apt-get)")
    with services.redis_server() as (url, _process):
        yield url


@pytest.fixture(scope="session")
def bundled():
    from bert_embeddings.models.checkpoints import load_bundled

    return load_bundled()


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    return write_random_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture
def downloads(monkeypatch):
    """Every download a page offers, by file name: Streamlit gets the data function, and so
    does the test, which can call it as a click would."""
    offered = {}
    from streamlit.runtime.media_file_manager import MediaFileManager

    real = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        offered[file_name] = data_callable
        return real(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    go_offline(monkeypatch)
    return offered


@pytest.fixture
def offline(monkeypatch):
    """Tests never wait on a network: the default model resolves offline at once."""
    go_offline(monkeypatch)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A browser test that fails reports what every page it had open showed at that moment (its
    address and text), so that a failure on a busy CI machine explains itself."""
    outcome = yield
    report = outcome.get_result()
    chromium = item.funcargs.get("browser") if report.when == "call" and report.failed else None
    if chromium is None:
        return
    shown = []
    for context in chromium.contexts:
        for page in context.pages:
            try:
                text = page.inner_text("body", timeout=5_000)
            except Exception as problem:  # (a closed or hung page says so instead)
                text = f"(could not be read: {problem})"
            shown.append(f"--- {page.url}\n{text[-2_000:]}")
    report.sections.append(("pages open when the test failed", "\n".join(shown) or "(none)"))
