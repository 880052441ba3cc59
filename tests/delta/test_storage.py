"""LocalStorage: put-if-absent is atomic and exclusive; the rest is plain file access."""
from __future__ import annotations

import os
import threading

import pytest

from acidsql.delta.errors import CommitFileExists
from acidsql.delta.storage import LocalStorage


def test_write_if_absent_creates_once_then_refuses(tmp_path):
    s = LocalStorage(tmp_path)
    s.write_if_absent("_delta_log/00000000000000000000.json", b"first\n")
    with pytest.raises(CommitFileExists) as err:
        s.write_if_absent("_delta_log/00000000000000000000.json", b"second\n")
    assert err.value.version == 0
    assert "already exists" in str(err.value)
    assert s.read_bytes("_delta_log/00000000000000000000.json") == b"first\n"
    assert s.list_dir("_delta_log") == ["00000000000000000000.json"]  # no temp file left behind


def test_racing_writers_exactly_one_wins(tmp_path):
    s = LocalStorage(tmp_path)
    winners, losers = [], []
    barrier = threading.Barrier(16)

    def attempt(i: int) -> None:
        barrier.wait()
        try:
            s.write_if_absent("_delta_log/00000000000000000007.json", f"writer {i}\n".encode())
            winners.append(i)
        except CommitFileExists:
            losers.append(i)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1 and len(losers) == 15
    assert s.read_bytes("_delta_log/00000000000000000007.json") == f"writer {winners[0]}\n".encode()
    assert s.list_dir("_delta_log") == ["00000000000000000007.json"]


def test_write_bytes_replaces_and_creates_directories(tmp_path):
    s = LocalStorage(tmp_path)
    s.write_bytes("a/b/c.bin", b"1")
    s.write_bytes("a/b/c.bin", b"22")
    assert s.read_bytes("a/b/c.bin") == b"22"
    assert s.size("a/b/c.bin") == 2
    assert s.exists("a/b/c.bin") and s.exists("a/b") and not s.exists("a/x")
    assert abs(s.mtime_ms("a/b/c.bin") - os.stat(tmp_path / "a/b/c.bin").st_mtime * 1000) < 2


def test_listing_walking_and_deleting(tmp_path):
    s = LocalStorage(tmp_path)
    for rel in ["z.parquet", "p=1/b.parquet", "p=1/a.parquet", "_delta_log/00000000000000000000.json"]:
        s.write_bytes(rel, b"x")
    assert s.list_dir("") == ["_delta_log", "p=1", "z.parquet"]
    assert s.list_dir("missing") == []
    assert list(s.walk_files()) == ["_delta_log/00000000000000000000.json", "p=1/a.parquet",
                                    "p=1/b.parquet", "z.parquet"]
    assert list(s.walk_files("p=1")) == ["p=1/a.parquet", "p=1/b.parquet"]
    s.delete("z.parquet")
    s.delete("z.parquet")  # already gone: no error
    assert not s.exists("z.parquet")
    assert s.local_path("p=1/a.parquet") == str(tmp_path / "p=1" / "a.parquet")
    with pytest.raises(FileNotFoundError):
        s.read_bytes("z.parquet")


def test_open_write_appears_whole_on_close_and_not_at_all_on_abort(tmp_path):
    s = LocalStorage(tmp_path)
    with s.open_write("p=1/part-0.parquet") as f:
        f.write(b"abc")
        assert not s.exists("p=1/part-0.parquet")  # nothing under the final name yet
        f.write(b"def")
        assert f.tell() == 6
    assert s.read_bytes("p=1/part-0.parquet") == b"abcdef"
    with pytest.raises(ValueError):
        with s.open_write("p=1/part-1.parquet") as f:
            f.write(b"x")
            raise ValueError("task failed")
    assert s.list_dir("p=1") == ["part-0.parquet"]  # no file, no temp file
    with s.open_read("p=1/part-0.parquet") as f:
        f.seek(3)
        assert f.read() == b"def"


def test_list_dir_from_and_uri(tmp_path):
    s = LocalStorage(tmp_path)
    for v in range(4):
        s.write_bytes(f"_delta_log/{v:020d}.json", b"{}")
    s.write_bytes("_delta_log/00000000000000000002.checkpoint.parquet", b"x")
    assert s.list_dir_from("_delta_log", f"{2:020d}") == [
        "00000000000000000002.checkpoint.parquet", "00000000000000000002.json", "00000000000000000003.json"]
    assert s.uri("_delta_log") == str(tmp_path / "_delta_log") and s.uri() == str(tmp_path)
