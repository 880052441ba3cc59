"""A throwaway PostgreSQL server for the catalog tests: Debian's postgresql 15 binaries
(/usr/lib/postgresql/15/bin), a cluster made by initdb in a temporary directory, listening on
127.0.0.1 at a free port (trust authentication, loopback only), stopped and deleted at the end.
As root, the cluster runs as the `postgres` user (PostgreSQL refuses to run as root)."""
from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from typing import Optional

def _newest_debian_bin() -> str:
    """Debian installs each major version under /usr/lib/postgresql/<major>/bin: the newest."""
    import glob

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0)
    return found[-1] if found else "/usr/lib/postgresql/15/bin"


PG_BIN = os.environ.get("ACIDSQL_PG_BIN") or _newest_debian_bin()


def missing_reason() -> Optional[str]:
    """Why no server can be started here, or None."""
    for tool in ("initdb", "postgres", "pg_isready"):
        if not os.path.exists(os.path.join(PG_BIN, tool)):
            return f"PostgreSQL binaries not found ({PG_BIN}/{tool}); apt-get install postgresql-15"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run the server as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'acidsql[catalog]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="acidsql-pg-")
        self.data = os.path.join(self.dir, "data")
        self.port = _free_port()
        self.proc: Optional[subprocess.Popen] = None
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.dir, user.pw_uid, user.pw_gid)
            self._as = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]

    def start(self) -> "PostgresServer":
        subprocess.run([*self._as, f"{PG_BIN}/initdb", "-D", self.data, "-A", "trust", "-U", "postgres",
                        "--no-sync", "-E", "UTF8"], check=True, capture_output=True)
        log = open(os.path.join(self.dir, "server.log"), "wb")
        self.proc = subprocess.Popen(
            [*self._as, f"{PG_BIN}/postgres", "-D", self.data, "-h", "127.0.0.1", "-p", str(self.port),
             "-k", self.dir, "-c", "fsync=off", "-c", "max_connections=200"],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready = subprocess.run([f"{PG_BIN}/pg_isready", "-h", "127.0.0.1", "-p", str(self.port)],
                                   capture_output=True)
            if ready.returncode == 0:
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"PostgreSQL did not start; see {self.dir}/server.log")

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh database (its DSN): one catalog per test."""
        import psycopg

        name = f"cat_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.dsn(name)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(2)  # SIGINT: fast shutdown
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
