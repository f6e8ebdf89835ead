"""A TCP relay between a browser and a server that counts the bytes the server sends: what a
shared Wi-Fi carries, compressed as it travels."""

from __future__ import annotations

import socket
import threading


class Counter:
    """Relays every connection from ``port`` to ``target_port`` and counts the bytes the server
    sends on them: all of them (websocket frames, and any HTTP the page fetches), or with
    ``only`` those of the connections whose request starts with it (b"GET /_stcore/stream":
    Streamlit's websocket alone)."""

    def __init__(self, target_port: int, only: bytes | None = None) -> None:
        self.received, self.lock = 0, threading.Lock()  # (connections are relayed by threads of their own)
        self.target_port, self.only = target_port, only
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self.listener.accept()
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:  # the server has stopped
                client.close()
                return
            # Whether the server's bytes on this connection count, known from the request's first
            # bytes (a server speaks only after the browser's request).
            counted = {"yes": self.only is None, "asked": False}
            threading.Thread(target=self._pipe, args=(client, server, counted, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, counted, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, counted: dict, from_server: bool) -> None:
        try:
            while data := source.recv(1 << 16):
                if from_server and counted["yes"]:
                    with self.lock:
                        self.received += len(data)
                elif not from_server and not counted["asked"]:
                    counted["asked"] = True
                    counted["yes"] = self.only is None or data.startswith(self.only)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def take(self) -> float:
        with self.lock:
            megabytes, self.received = self.received / 1e6, 0
        return megabytes
