"""The room's push: each follower's browser holds one ``EventSource`` on
``rooms/<code>/events``, and this route sends it the room's version at once and then on every
change (0 when the room closes), so that the follower's page reruns within a moment instead of
asking every few seconds. A stream holds no Streamlit session: it only reads the room registry
(components/rooms/roomstore.py), so any server process can serve it.

``streamlit run app.py`` serves the route beside the pages through ``st.App`` (see app.py).
Where a host does not pass the route through, the browser's stream fails and the page falls
back to asking every few seconds (components/rooms/follow.py); nothing else changes.
"""

from __future__ import annotations

import asyncio
import resource
import signal
import threading

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from bert_embeddings import rooms
from bert_embeddings.rooms import RoomClosedError, RoomError, RoomsUnavailableError
from components.rooms import roomstore

KEEP_ALIVE_SECONDS = 15  # a comment line now and then, so that proxies keep an idle stream open
RETRY_MS = 1000  # how soon a browser reconnects after a stream ends
# Per process: a stranger opening thousands gets a refusal, and the server keeps file handles
# for everything else (each stream holds one).
MOST_STREAMS = min(2000, resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 2)
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
    try:  # (in a thread: a store on another host must never hold up the server's event loop)
        await asyncio.to_thread(lambda: roomstore.store().look(code))
    except (RoomClosedError, RoomsUnavailableError):
        pass  # the stream says so at once (version 0), or ends for the browser to try again
    except RoomError as problem:
        return PlainTextResponse(str(problem), status_code=404)
    _end_streams_on_shutdown(asyncio.get_running_loop())
    return StreamingResponse(
        _versions(code),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _versions(code: str):
    """The stream's text: the version now, then each new one, until the room closes, the
    browser goes, or the server stops. (Registered only once the stream really starts, so that
    a browser gone before it starts leaves nothing behind.)"""
    loop, queue, stop = asyncio.get_running_loop(), asyncio.Queue(), None
    _streams.add(queue)
    try:
        store = await asyncio.to_thread(roomstore.store)
        try:  # watching first, then looking: no change can fall between the two
            told = lambda new: loop.call_soon_threadsafe(queue.put_nowait, new)  # noqa: E731
            stop = await asyncio.to_thread(store.watch, code, told)
            version = (await asyncio.to_thread(store.look, code)).version
        except RoomsUnavailableError:  # the store is away: the browser asks again after RETRY_MS
            yield f"retry: {RETRY_MS}\n\n"
            return
        except RoomError:
            version = 0
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
        if stop is not None:
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
            try:
                for queue in list(_streams):
                    loop.call_soon_threadsafe(queue.put_nowait, None)
            except RuntimeError:  # the loop has closed: nothing left to end
                pass
            finally:
                if callable(previous):
                    previous(signum, frame)
                elif previous != signal.SIG_IGN:  # the default: stop, as without this handler
                    signal.signal(signum, signal.SIG_DFL)
                    signal.raise_signal(signum)

        signal.signal(number, handler)


ROUTES = [
    Route("/rooms/{code}/events", events),
    # behind a path prefix (server.baseUrlPath, or a host's proxy), the same route
    Route("/{prefix:path}/rooms/{code}/events", events),
]
