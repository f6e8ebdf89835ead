"""``streamlit run``, noting how long each script run takes, from inside the server.

bench/load starts the app through this module instead of ``python -m streamlit``. It wraps
Streamlit's ScriptRunner._run_script (one page run for one session) and appends a line per
run to the file named by BERT_EXPLORER_RUN_TIMES: the session id and the run's wall-clock
seconds. The app itself is not changed.

    python -m bench.timed_server run app.py [streamlit options]
"""

from __future__ import annotations

import os
import threading
import time

from streamlit.runtime.scriptrunner import script_runner
from streamlit.web import cli

RUN_TIMES = os.environ["BERT_EXPLORER_RUN_TIMES"]
_lock = threading.Lock()
_run_script = script_runner.ScriptRunner._run_script


def _timed_run_script(self, rerun_data):
    started = time.perf_counter()
    try:
        return _run_script(self, rerun_data)
    finally:
        line = f"{self._session_id} {time.perf_counter() - started:.6f}\n"
        with _lock, open(RUN_TIMES, "a") as log:
            log.write(line)


script_runner.ScriptRunner._run_script = _timed_run_script

if __name__ == "__main__":
    cli.main(prog_name="streamlit")
