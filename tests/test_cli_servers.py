"""Issue 47.8: the local servers (`dicepod dash`, `dicepod sim`) on a machine others share: a
bad path gets 400 (not a dropped connection), only local Host names are answered (the DNS
rebinding guard), and hundreds of idle connections under a 256 open-file limit neither take
the server down nor keep it from answering."""

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import loggen
import pytest

from dicepod_host import dash
from dicepod_host.sim import server as sim_server
from dicepod_host.store import Store

HERE = Path(__file__).resolve().parent


def _db(tmp_path):
    from dicepod import protocol_pc

    _storage, lines = loggen.build([loggen.battle_game(3, 10), loggen.free_game(4, 12)])
    path = tmp_path / "club.db"
    with Store(path) as store:
        for line in lines:
            store.add_event(protocol_pc.parse(line))
    return path


def _raw(port, request, timeout=10.0):
    """Send raw request bytes; return the status code of the reply (None: no reply)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        reply = b""
        try:
            while b"\r\n" not in reply:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                reply += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    if not reply.startswith(b"HTTP/"):
        return None
    return int(reply.split(b" ", 2)[1])


def _get(port, path, host="127.0.0.1"):
    return _raw(port, b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host.encode()))


def _servers(tmp_path):
    """A dashboard and a simulator server, each in a thread (no .mpy warm-up)."""
    made = [dash.make_server(str(_db(tmp_path)), "127.0.0.1", 0)]
    sim_server.check_ready()
    made.append(sim_server.SimServer(("127.0.0.1", 0), sim_server.Handler))
    for server in made:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    return made


def test_bad_paths_get_400_and_foreign_host_names_403(tmp_path):
    servers = _servers(tmp_path)
    try:
        for server in servers:
            port = server.server_address[1]
            assert _get(port, b"/") == 200
            assert _get(port, b"/\x00x") == 400
            assert _get(port, b"/index.html\x00.png") == 400
            assert _get(port, b"/" + b"a" * 5000) == 400
            assert _get(port, b"/" + b"a/" * 2500) == 400
            assert _get(port, b"/no-such-file.js") == 404
            for host in ("localhost", "localhost:%d" % port, "127.0.0.1:%d" % port, "[::1]:80",
                         "pods.localhost", "192.168.1.20:%d" % port):  # fmt: skip
                assert _get(port, b"/", host) == 200, host
            for host in ("evil.example", "evil.example:%d" % port, "127.0.0.1.nip.io",
                         "localhost.evil.example", "localhost:x", "[::1]x"):  # fmt: skip
                assert _get(port, b"/", host) == 403, host
            # No Host header at all (HTTP/1.0): a local tool, answered.
            assert _raw(port, b"GET / HTTP/1.0\r\n\r\n") == 200
        # The dashboard's data still comes for its own page.
        port = servers[0].server_address[1]
        assert _get(port, b"/data.json", "localhost:%d" % port) == 200
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


SERVE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
from dicepod_host import dash
server = dash.make_server(sys.argv[1], "127.0.0.1", 0)
server.idle_timeout = 0.5
print(server.server_address[1], flush=True)
server.serve_forever(poll_interval=0.1)
"""


@pytest.mark.timeout(120)
def test_idle_connections_under_a_256_file_limit_do_not_take_the_dashboard_down(tmp_path):
    db = _db(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(db)], stdout=subprocess.PIPE, text=True, env=env
    )
    idle = []
    try:
        port = int(proc.stdout.readline())
        for _ in range(300):  # idle: connected, never a byte sent
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            idle.append(sock)
            time.sleep(0.005)  # paced: a server that takes each one in holds a file for it
        time.sleep(0.3)
        started = time.monotonic()
        reply = b""
        with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
            sock.sendall(b"GET /data.json HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                reply += chunk
        waited = time.monotonic() - started
        assert reply.startswith(b"HTTP/1.0 200"), reply[:200]
        body = json.loads(reply.split(b"\r\n\r\n", 1)[1])
        with Store(db, create=False) as store:
            assert body["events"] == store.count()
        assert proc.poll() is None  # still serving
        print("answered behind 300 idle connections after %.1f s" % waited)
    finally:
        for sock in idle:
            sock.close()
        proc.kill()
        proc.wait()
