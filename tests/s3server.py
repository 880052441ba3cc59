"""A real S3 server for the tests: moto's server mode (`python -m moto.server`) on 127.0.0.1,
and a small HTTP proxy in front of it that injects faults a real store can have (ignoring
`If-None-Match`, a response that never comes, a request that never arrives) and counts
requests. Nothing here stands in for acidsql's own storage code: acidsql talks HTTP to a real
server through obstore, exactly as it would to AWS."""
from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional

ACCESS_KEY = "acidsql-test-key"
SECRET_KEY = "acidsql-test-secret-Zq81"  # distinctive, so a test can search output for it
REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the S3 server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the S3 server did not listen on 127.0.0.1:{port} within {timeout} s")


class MotoServer:
    """`python -m moto.server` in a subprocess (its own GIL: the torture's workers hammer it)."""

    def __init__(self, extra_env: Optional[dict] = None):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, **(extra_env or {})}
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for_port(self.port, self.proc)

    def client(self, access_key: str = ACCESS_KEY, secret_key: str = SECRET_KEY):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=access_key,
                            aws_secret_access_key=secret_key, region_name=REGION)

    def create_bucket(self, name: str) -> None:
        self.client().create_bucket(Bucket=name)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def s3_env(endpoint: str) -> dict[str, str]:
    """The standard AWS environment variables pointing at `endpoint` (what a user sets)."""
    return {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": REGION, "AWS_ALLOW_HTTP": "true",
            # Never ask an instance-metadata endpoint for credentials (they are all given above).
            "AWS_EC2_METADATA_DISABLED": "true"}


@dataclass
class FaultRules:
    """What the proxy does to requests. `match(method, path)` selects the requests a rule hits."""

    strip_if_none_match: bool = False
    # Requests matching `stall` are forwarded, then their response is held for `stall_s` seconds
    # (the server did the work; the client times out), or, with `drop`, never forwarded at all.
    stall: Optional[Callable[[str, str], bool]] = None
    stall_s: float = 0.0
    drop: bool = False
    stall_count: int = 1 << 30  # how many matching requests to stall
    # Instead of stalling: answer matching requests with this (status, S3 error code) without
    # forwarding them, e.g. (409, "ConditionalRequestConflict"), which AWS S3 returns while
    # another conditional write of the key is in flight (moto never does).
    answer: Optional[tuple[int, str]] = None
    counts: Counter = field(default_factory=Counter)
    log: list = field(default_factory=list)


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 forwarding to `upstream` (the moto server)."""

    def __init__(self, upstream: str, rules: Optional[FaultRules] = None):
        self.rules = rules or FaultRules()
        up_host, up_port = upstream.split("://", 1)[1].split(":")
        rules_ref = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _handle(self) -> None:
                rules = rules_ref.rules
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path = self.path
                with lock:
                    rules.counts[self.command] += 1
                    rules.log.append((self.command, path))
                stalled = False
                if rules.stall is not None and rules.stall(self.command, path):
                    with lock:
                        if rules.stall_count > 0:
                            rules.stall_count -= 1
                            stalled = True
                if stalled and rules.answer is not None:
                    status, code = rules.answer
                    body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                            f"<Message>injected by the test proxy</Message></Error>").encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if stalled and rules.drop:
                    time.sleep(rules.stall_s)
                    self.close_connection = True
                    return
                headers = {k: v for k, v in self.headers.items()
                           if not (rules.strip_if_none_match and k.lower() == "if-none-match")}
                conn = http.client.HTTPConnection(up_host, int(up_port), timeout=60)
                conn.request(self.command, path, body=body if body or self.command in ("PUT", "POST") else None,
                             headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                if stalled:
                    time.sleep(rules.stall_s)
                self.send_response(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                conn.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
