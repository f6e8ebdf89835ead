"""The room's push: each follower's browser holds one ``EventSource`` on
``rooms/<code>/events``, and this route sends it the room's version at once and then on every
change (0 when the room closes), so that the follower's page reruns within a moment instead of
asking every few seconds. A stream holds no Streamlit session: it only reads the room registry
(components/roomstore.py), so any server process can serve it.

``streamlit run app.py`` serves the route beside the pages through ``st.App`` (see app.py).
Where a host does not pass the route through, the browser's stream fails and the page falls
back to asking every few seconds (components/follow.py); nothing else changes.
"""

from __future__ import annotations

import asyncio
import signal
import threading

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from bert_embeddings import rooms
from bert_embeddings.rooms import RoomClosedError, RoomError
from components import roomstore

KEEP_ALIVE_SECONDS = 15  # a comment line now and then, so that proxies keep an idle stream open
RETRY_MS = 1000  # how soon a browser reconnects after a stream ends
MOST_STREAMS = 2000  # per process: a stranger opening thousands gets a refusal, not the server
_streams: set[asyncio.Queue] = set()  # every open stream's queue, told when the server stops
_stopping: list[bool] = []  # holds True once the server is stopping
_installed = threading.Event()  # the shutdown handlers are in place


async def events(request: Request) -> Response:
    try:
        code = rooms.normal_code(request.path_params["code"][:40])
    except RoomError as problem:
        return PlainTextResponse(str(problem), status_code=404)
    if len(_streams) >= MOST_STREAMS or _stopping:
        return PlainTextResponse("Too many open streams: the page asks every few seconds instead.", 503)
    store = roomstore.store()
    try:
        version = store.look(code).version
    except RoomClosedError:
        version = 0
    except RoomError as problem:
        return PlainTextResponse(str(problem), status_code=404)
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    _end_streams_on_shutdown(loop)
    _streams.add(queue)
    stop = store.watch(code, lambda new: loop.call_soon_threadsafe(queue.put_nowait, new))
    return StreamingResponse(
        _versions(queue, version, stop),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _versions(queue: asyncio.Queue, version: int, stop):
    """The stream's text: the version now, then each new one, until the room closes, the
    browser goes, or the server stops."""
    try:
        yield f"retry: {RETRY_MS}\ndata: {version}\n\n"
        while version != 0:
            try:
                version = await asyncio.wait_for(queue.get(), KEEP_ALIVE_SECONDS)
            except TimeoutError:
                yield ": still open\n\n"
                continue
            if version is None:  # the server is stopping
                return
            yield f"data: {version}\n\n"
    finally:
        stop()
        _streams.discard(queue)


def _end_streams_on_shutdown(loop: asyncio.AbstractEventLoop) -> None:
    """Once per process: on SIGTERM or SIGINT, end every open stream before the server's own
    handler runs, so that stopping waits for no browser (otherwise it waits out its grace time)."""
    if _installed.is_set() or threading.current_thread() is not threading.main_thread():
        return
    _installed.set()
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)

        def handler(signum, frame, previous=previous):
            _stopping.append(True)
            for queue in list(_streams):
                loop.call_soon_threadsafe(queue.put_nowait, None)
            if callable(previous):
                previous(signum, frame)

        signal.signal(number, handler)


ROUTES = [
    Route("/rooms/{code}/events", events),
    # behind a path prefix (server.baseUrlPath, or a host's proxy), the same route
    Route("/{prefix:path}/rooms/{code}/events", events),
]
