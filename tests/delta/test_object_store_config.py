"""Google Cloud Storage and Azure go through the same ObjectStorage as S3; no local server for
them runs in the tests, so their configuration is checked without network: the options and
environment variables a user gives must reach object_store, which then signs URLs for the
table's objects with them (signing is local: RSA for a GCS service account, HMAC for an
Azure account key). A mapping that dropped the account, the key or the table's prefix would
sign the wrong URL or fail."""
from __future__ import annotations

import base64
import datetime as dt
import json
import pickle
from urllib.parse import parse_qs, urlparse

import pytest

from acidsql.delta.errors import StorageError
from acidsql.delta.object_store import ObjectStorage, resolved_options, store_config
from acidsql.delta.stores import storage_for

AZURE_KEY = base64.b64encode(b"acidsql-test-account-key-32bytes").decode()


def _signed(storage: ObjectStorage, rel: str, method: str = "GET") -> str:
    import obstore

    return obstore.sign(storage._store, method, rel, dt.timedelta(minutes=5))


@pytest.fixture
def service_account(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    info = {"type": "service_account", "client_email": "acidsql-test@proj.iam.gserviceaccount.com",
            "private_key": pem, "private_key_id": "k1", "project_id": "proj",
            "token_uri": "https://oauth2.googleapis.com/token"}
    path = tmp_path / "sa.json"
    path.write_text(json.dumps(info))
    return info, str(path)


@pytest.fixture(autouse=True)
def no_cloud_environment(monkeypatch):
    for name in list(__import__("os").environ):
        if name.startswith(("GOOGLE_", "AZURE_")):
            monkeypatch.delenv(name)


def test_gcs_service_account_key_option_signs_the_tables_objects(service_account):
    info, _path = service_account
    storage = storage_for("gs://my-bucket/warehouse/db/t", {"google_service_account_key": json.dumps(info)})
    url = urlparse(_signed(storage, "_delta_log/00000000000000000000.json"))
    assert (url.netloc, url.path) == ("storage.googleapis.com", "/my-bucket/warehouse/db/t/_delta_log/00000000000000000000.json")
    query = parse_qs(url.query)
    assert query["X-Goog-Credential"][0].startswith("acidsql-test@proj.iam.gserviceaccount.com/")
    assert query["X-Goog-Algorithm"] == ["GOOG4-RSA-SHA256"]


def test_gcs_environment_variables_configure_the_store(service_account, monkeypatch):
    _info, path = service_account
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", path)  # the SDKs' name for the key file
    assert resolved_options("gcs")["google_service_account"] == path
    storage = ObjectStorage("gs://b2/t")
    assert "acidsql-test%40proj" in _signed(storage, "x") or "acidsql-test@proj" in _signed(storage, "x")
    # The resolved options travel to executors with the storage (pickled), file path and all.
    again = pickle.loads(pickle.dumps(storage))
    assert urlparse(_signed(again, "x")).path == "/b2/t/x"


def test_azure_account_from_options_signs_the_tables_objects():
    storage = storage_for("az://container/wh/db/t", {"azure_storage_account_name": "acct",
                                                     "azure_storage_account_key": AZURE_KEY})
    url = urlparse(_signed(storage, "_delta_log/00000000000000000001.json", "PUT"))
    assert url.netloc == "acct.blob.core.windows.net"
    assert url.path == "/container/wh/db/t/_delta_log/00000000000000000001.json"
    assert parse_qs(url.query)["sp"] == ["w"]
    assert AZURE_KEY not in repr(storage) + repr(storage.options)


def test_abfss_uri_names_the_account_and_environment_gives_the_key(monkeypatch):
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_KEY", AZURE_KEY)
    storage = storage_for("abfss://lake@acct2.dfs.core.windows.net/bronze/events")
    url = urlparse(_signed(storage, "part-0.parquet"))
    assert url.netloc == "acct2.blob.core.windows.net" and url.path == "/lake/bronze/events/part-0.parquet"
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_NAME", "acct3")
    url = urlparse(_signed(storage_for("az://c/t"), "x"))
    assert url.netloc == "acct3.blob.core.windows.net"


def test_azure_without_an_account_is_a_clear_error():
    with pytest.raises(StorageError, match=r"cannot open az://c/t: .*[Aa]ccount"):
        storage_for("az://c/t")


def test_client_and_store_keys_are_routed_per_store():
    gcs = store_config("gs://b/t", {"GOOGLE_SERVICE_ACCOUNT": "/k.json", "timeout": "10s"})
    assert gcs["config"] == {"google_service_account": "/k.json"} and gcs["client_options"]["timeout"] == "10s"
    az = store_config("az://c/t", {"AZURE_STORAGE_ACCOUNT_NAME": "a", "azure_allow_http": "true",
                                   "azure_storage_use_emulator": "true"})
    assert az["config"] == {"azure_storage_account_name": "a", "azure_storage_use_emulator": "true"}
    assert az["client_options"]["allow_http"] == "true"
