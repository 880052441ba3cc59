"""ObjectStorage against a real S3 server (moto's server mode on 127.0.0.1): the server's own
conditional-put behaviour, put-if-absent under a 16-writer race, the faults a store can have,
and that no secret reaches a message."""
from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.errors import CommitFileExists, StorageError, UnsafeStorageError, UnsupportedStorageError
from acidsql.delta.object_store import ObjectStorage, StorageOptions, redact, store_config
from acidsql.delta.storage import LocalStorage, normalize_location
from acidsql.delta.stores import storage_for
from tests.s3server import ACCESS_KEY, SECRET_KEY, FaultProxy, FaultRules, MotoServer, s3_env


def test_the_pinned_moto_server_refuses_a_second_create_with_412(s3_server, s3_bucket):
    """The server itself, through boto3 (not acidsql): If-None-Match: * on an existing key is
    412 Precondition Failed. Everything else in this file relies on it."""
    from botocore.exceptions import ClientError

    client = s3_server.client()
    client.put_object(Bucket=s3_bucket, Key="k", Body=b"1", IfNoneMatch="*")
    with pytest.raises(ClientError) as err:
        client.put_object(Bucket=s3_bucket, Key="k", Body=b"2", IfNoneMatch="*")
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    assert client.get_object(Bucket=s3_bucket, Key="k")["Body"].read() == b"1"


def test_storage_for_picks_the_backend_and_refuses_other_schemes(tmp_path, s3_bucket):
    assert isinstance(storage_for(str(tmp_path)), LocalStorage)
    assert isinstance(storage_for(f"file://{tmp_path}"), LocalStorage)
    assert isinstance(storage_for(f"s3://{s3_bucket}/t"), ObjectStorage)
    for bad in ("hdfs://namenode/t", "foo://x/y", "http://example/t"):
        with pytest.raises(UnsupportedStorageError, match="cannot store tables on"):
            storage_for(bad)
    with pytest.raises(UnsupportedStorageError, match="no bucket"):
        normalize_location("s3:///t")
    assert normalize_location("S3://b/wh/") == "s3://b/wh"


def test_object_storage_basic_operations(s3_bucket):
    s = ObjectStorage(f"s3://{s3_bucket}/wh/t")
    s.write_if_absent("_delta_log/00000000000000000000.json", b"first\n")
    with pytest.raises(CommitFileExists) as err:
        s.write_if_absent("_delta_log/00000000000000000000.json", b"second\n")
    assert err.value.version == 0
    assert s.read_bytes("_delta_log/00000000000000000000.json") == b"first\n"
    s.write_bytes("p=a%20b/x.parquet", b"12345")
    s.write_bytes("p=a%20b/x.parquet", b"123")
    assert s.size("p=a%20b/x.parquet") == 3
    assert abs(s.mtime_ms("p=a%20b/x.parquet") - time.time() * 1000) < 120_000
    assert s.exists("p=a%20b/x.parquet") and s.exists("p=a%20b") and s.exists("_delta_log")
    assert not s.exists("nope") and not s.exists("p=a%20b/y")
    assert s.list_dir("") == ["_delta_log", "p=a%20b"]
    assert s.list_dir("_delta_log") == ["00000000000000000000.json"]  # the probe object is gone
    assert s.list_dir("missing") == []
    assert list(s.walk_files()) == ["_delta_log/00000000000000000000.json", "p=a%20b/x.parquet"]
    with pytest.raises(FileNotFoundError):
        s.read_bytes("nope")
    with s.open_write("big/file.bin") as f:
        for _ in range(3):
            f.write(b"x" * 1000)
    assert s.read_bytes("big/file.bin") == b"x" * 3000
    with pytest.raises(RuntimeError):
        with s.open_write("aborted.bin") as f:
            f.write(b"y")
            raise RuntimeError("writer failed")
    assert not s.exists("aborted.bin")
    with s.open_read("big/file.bin") as f:
        f.seek(2990)
        assert f.read() == b"x" * 10
    s.delete("big/file.bin")
    s.delete("big/file.bin")
    assert not s.exists("big/file.bin")
    for i in range(1, 6):
        s.write_bytes(f"_delta_log/{i:020d}.json", b"{}")
    assert s.list_dir_from("_delta_log", f"{3:020d}") == [f"{i:020d}.json" for i in (3, 4, 5)]


def test_sixteen_writers_race_one_version_exactly_one_wins(s3_bucket):
    s = ObjectStorage(f"s3://{s3_bucket}/race")
    s.check_conditional_put("_delta_log")  # the per-store probe, once, before the race
    winners, losers, errors = [], [], []
    barrier = threading.Barrier(16)

    def attempt(i: int) -> None:
        barrier.wait()
        try:
            s.write_if_absent("_delta_log/00000000000000000007.json", f"writer {i}\n".encode())
            winners.append(i)
        except CommitFileExists:
            losers.append(i)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(winners) == 1 and len(losers) == 15
    assert s.read_bytes("_delta_log/00000000000000000007.json") == f"writer {winners[0]}\n".encode()


def test_sixteen_engine_transactions_race_for_one_version(s3_bucket):
    """Sixteen blind appends from the same read version, at once: all commit, at 16 distinct
    versions, every row once (the losers re-check and retry)."""
    root = f"s3://{s3_bucket}/appends"
    DeltaTable.create(root, pa.schema([("id", pa.int64())]))
    # 16 racers: the unluckiest loses 15 races, above the default of 10 retries.
    prepared = [DeltaTable(root, max_retries=20).start_append(pa.table({"id": [i]})) for i in range(16)]
    assert {p.txn.read_version for p in prepared} == {0}
    barrier = threading.Barrier(16)
    results, errors = [], []

    def commit(p) -> None:
        barrier.wait()
        try:
            results.append(p.commit())
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=commit, args=(p,)) for p in prepared]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(r.version for r in results) == list(range(1, 17))
    assert sum(r.retries for r in results) > 0
    assert sorted(DeltaTable(root).to_arrow().column("id").to_pylist()) == list(range(16))


def test_missing_bucket_is_a_clear_error(s3_bucket):
    table = DeltaTable("s3://no-such-bucket-acidsql/t")
    with pytest.raises(StorageError, match="s3://no-such-bucket-acidsql/t.*bucket .*does not exist"):
        table.snapshot()
    with pytest.raises(StorageError, match="does not exist"):
        DeltaTable.create("s3://no-such-bucket-acidsql/t", pa.schema([("id", pa.int64())]))


def test_unreachable_endpoint_is_a_clear_error(s3_bucket):
    dead = f"http://127.0.0.1:{_closed_port()}"
    options = {"aws_endpoint_url": dead, "max_retries": "1", "retry_timeout": "2s", "connect_timeout": "1s"}
    with pytest.raises(StorageError, match=r"s3://.*/t/_delta_log.*cannot reach the store's endpoint") as err:
        DeltaTable(f"s3://{s3_bucket}/t", storage=storage_for(f"s3://{s3_bucket}/t", options)).snapshot()
    assert SECRET_KEY not in str(err.value)


def test_access_denied_is_a_clear_error_and_names_no_secret(tmp_path):
    """A second moto server that enforces authentication: an unknown key gets 403."""
    server = MotoServer(extra_env={"INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    try:
        options = {"aws_endpoint_url": server.endpoint, "aws_access_key_id": "AKIAUNKNOWNKEY00000",
                   "aws_secret_access_key": "wrong-secret-Q7x9", "aws_region": "us-east-1", "aws_allow_http": "true"}
        with pytest.raises(StorageError, match="access denied") as err:
            DeltaTable("s3://some-bucket/t", storage=storage_for("s3://some-bucket/t", options)).snapshot()
        assert "wrong-secret-Q7x9" not in str(err.value) and "s3://some-bucket/t" in str(err.value)
    finally:
        server.stop()


def _closed_port() -> int:
    from tests.s3server import free_port

    return free_port()  # bound and released: nothing listens there


# ---- a store that ignores If-None-Match ------------------------------------------------------------

@pytest.fixture
def header_stripping_proxy(s3_server, s3_bucket, monkeypatch):
    """A proxy that forwards to moto without the If-None-Match header: a store that silently
    ignores conditional writes (some S3-compatible stores do)."""
    proxy = FaultProxy(s3_server.endpoint, FaultRules(strip_if_none_match=True))
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
    yield proxy
    proxy.stop()


def test_a_store_ignoring_the_conditional_header_is_refused_before_the_first_commit(header_stripping_proxy, s3_bucket):
    root = f"s3://{s3_bucket}/unsafe"
    with pytest.raises(UnsafeStorageError, match="does not honour create-only writes.*acidsql.unsafe_no_conditional_put"):
        DeltaTable.create(root, pa.schema([("id", pa.int64())]))
    storage = ObjectStorage(root)
    assert storage.list_dir("_delta_log") == []  # nothing committed, the probe cleaned up
    # Opting in: commits work (one writer at a time), with a warning.
    optin = storage_for(root, {"acidsql.unsafe_no_conditional_put": "true"})
    with pytest.warns(UserWarning, match="without create-only writes"):
        DeltaTable.create(root, pa.schema([("id", pa.int64())]), storage=optin)
    table = DeltaTable(root, storage=optin)
    table.append(pa.table({"id": [1]}))
    assert table.version == 1
    with pytest.raises(CommitFileExists):  # a sequential second create is still caught (HEAD first)
        optin.write_if_absent("_delta_log/00000000000000000001.json", b"{}")


def test_the_probe_passes_on_a_store_that_honours_the_header(s3_bucket):
    storage = ObjectStorage(f"s3://{s3_bucket}/safe")
    assert storage.check_conditional_put("_delta_log") is True
    assert storage.list_dir("_delta_log") == []


# ---- a request that times out mid-commit ---------------------------------------------------------

def _commit_put(method: str, path: str) -> bool:
    return method == "PUT" and path.split("?")[0].endswith("00000000000000000001.json")


def _proxied_table(s3_server, s3_bucket, rules, name):
    proxy = FaultProxy(s3_server.endpoint, rules)
    root = f"s3://{s3_bucket}/{name}"
    DeltaTable.create(root, pa.schema([("id", pa.int64())]))
    options = {"aws_endpoint_url": proxy.endpoint, "timeout": "1s", "max_retries": "2", "retry_timeout": "5s"}
    return proxy, root, DeltaTable(root, storage=storage_for(root, options))


def test_a_commit_whose_response_times_out_is_recognised_as_committed(s3_server, s3_bucket):
    """The server stores the commit but the answer never reaches the client in time: the retry
    (or the engine's check) finds version 1 written by this very transaction, not a rival."""
    rules = FaultRules(stall=_commit_put, stall_s=3.0, stall_count=1)
    proxy, root, table = _proxied_table(s3_server, s3_bucket, rules, "slow-answer")
    try:
        result = table.append(pa.table({"id": [1]}))
        assert result.version == 1
        assert DeltaTable(root).version == 1
        assert DeltaTable(root).to_arrow().column("id").to_pylist() == [1]  # committed once
    finally:
        proxy.stop()


def test_a_commit_that_never_reaches_the_store_fails_clearly_and_leaves_nothing(s3_server, s3_bucket):
    rules = FaultRules(stall=_commit_put, stall_s=2.0, drop=True)
    proxy, root, table = _proxied_table(s3_server, s3_bucket, rules, "lost-request")
    try:
        with pytest.raises(StorageError, match=r"slow-answer|lost-request") as err:
            table.append(pa.table({"id": [1]}))
        message = str(err.value)
        assert "_delta_log/00000000000000000001.json" in message and "timed out" in message
        assert DeltaTable(root).version == 0  # no partial or phantom commit
        assert DeltaTable(root).to_arrow().num_rows == 0
    finally:
        proxy.stop()


# ---- configuration and secrets ----------------------------------------------------------------------

def test_options_map_onto_obstore_config_client_and_retry_settings():
    kwargs = store_config("s3://b/t", {"AWS_ACCESS_KEY_ID": "k", "aws_secret_access_key": "s",
                                       "AWS_ALLOW_HTTP": "true", "timeout": "30s", "max_retries": "3",
                                       "retry_timeout": "2m", "AWS_ENDPOINT_URL": "http://h:1",
                                       "acidsql.unsafe_no_conditional_put": "true"})
    assert kwargs["config"] == {"aws_access_key_id": "k", "aws_secret_access_key": "s",
                                "aws_endpoint_url": "http://h:1"}
    assert kwargs["client_options"] == {"allow_http": "true", "timeout": "30s"}
    assert kwargs["retry_config"]["max_retries"] == 3
    assert kwargs["retry_config"]["retry_timeout"].total_seconds() == 120
    with pytest.raises(UnsupportedStorageError, match="acidsql.nonsense"):
        store_config("s3://b/t", {"acidsql.nonsense": "1"})
    with pytest.raises(StorageError, match="unknown storage option|not valid"):
        ObjectStorage("s3://b/t", {"aws_no_such_key": "1"})


def test_secrets_never_appear_in_reprs_or_errors(s3_bucket):
    options = {"aws_secret_access_key": "s3cr3t-value-XYZ", "aws_access_key_id": "AKIAEXAMPLE123",
               "aws_session_token": "tok-en-value-777", "aws_endpoint_url": f"http://127.0.0.1:{_closed_port()}",
               "max_retries": "0", "connect_timeout": "1s"}
    storage = ObjectStorage(f"s3://{s3_bucket}/t", options)
    shown = repr(storage) + repr(storage.options) + str(StorageOptions(options))
    with pytest.raises(StorageError) as err:
        storage.read_bytes("_delta_log/_last_checkpoint")
    shown += str(err.value)
    for secret in ("s3cr3t-value-XYZ", "tok-en-value-777", SECRET_KEY):
        assert secret not in shown
    assert redact("GET https://acct.blob.core.windows.net/c/x?sv=2020&sig=abcdef failed") == \
        "GET https://acct.blob.core.windows.net/c/x?*** failed"
    assert redact("key is s3cr3t-value-XYZ", StorageOptions(options)) == "key is ***"


def test_environment_configuration_is_what_a_user_sets(s3_server, s3_bucket, monkeypatch):
    """Only the standard variables (s3_bucket set them): no options at all."""
    for key, value in s3_env(s3_server.endpoint).items():
        assert __import__("os").environ[key] == value
    DeltaTable.create(f"s3://{s3_bucket}/env", pa.schema([("id", pa.int64())])).append(pa.table({"id": [5]}))
    assert DeltaTable(f"s3a://{s3_bucket}/env").to_arrow().column("id").to_pylist() == [5]
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    creds = __import__("pathlib").Path(__import__("tempfile").mkdtemp()) / "credentials"
    creds.write_text(f"[acidsql-test]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(creds))
    monkeypatch.setenv("AWS_PROFILE", "acidsql-test")
    assert DeltaTable(f"s3://{s3_bucket}/env").to_arrow().column("id").to_pylist() == [5]


def test_secrets_stay_out_of_the_log_history_and_warehouse_reprs(s3_server, s3_bucket, monkeypatch):
    """Credentials given only as options: none of them reaches a commit, the history or a repr."""
    from acidsql.spark.tables import Warehouse

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    options = {"aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY}
    root = f"s3://{s3_bucket}/secret"
    table = DeltaTable.create(root, pa.schema([("id", pa.int64())]), storage_options=options)
    table.append(pa.table({"id": [1]}))
    storage = table.log.storage
    log_bytes = b"".join(storage.read_bytes(f"_delta_log/{n}") for n in storage.list_dir("_delta_log"))
    shown = repr(table) + repr(table.log) + repr(storage) + repr(Warehouse.at(f"s3://{s3_bucket}", storage_options=options))
    shown += repr(table.history()) + repr(table.detail())
    for secret in (SECRET_KEY, ACCESS_KEY):
        assert secret.encode() not in log_bytes and secret not in shown


def test_no_credentials_at_all_is_named_as_such(monkeypatch):
    """No key, no profile: object_store asks the instance-metadata service, which the test
    session points at 127.0.0.1 (tests/conftest.py); the message says what is missing."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_METADATA_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(StorageError, match="s3://some-bucket/t/_delta_log.*no credentials"):
        DeltaTable("s3://some-bucket/t", storage=storage_for("s3://some-bucket/t", {"max_retries": "0"})).snapshot()


def test_a_409_conditional_request_conflict_is_a_lost_race_and_the_commit_retries(s3_server, s3_bucket):
    """AWS S3 answers 409 ConditionalRequestConflict while another conditional write of the
    same key is in flight: treated as a lost race (read the winners, retry), not an error."""
    rules = FaultRules(stall=_commit_put, stall_count=1, answer=(409, "ConditionalRequestConflict"))
    proxy, root, table = _proxied_table(s3_server, s3_bucket, rules, "conflict-409")
    try:
        result = table.append(pa.table({"id": [1]}))
        assert (result.version, result.retries) == (1, 1)
        assert DeltaTable(root).to_arrow().column("id").to_pylist() == [1]
        assert [m for m, p in rules.log if _commit_put(m, p)] == ["PUT", "PUT"]
    finally:
        proxy.stop()
