"""[virtual-kernel] Fixtures for the Python package's tests: each test that takes `device` runs
once per virtual kernel on the a630 and on the a740, and fails when the library reports a virtual device closed with live
objects (a leak) or when it leaves library objects open (adreno.live_handles); the session fails
when any are open at its end."""
import gc
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))  # the package from the source tree

import adreno  # noqa: E402

LEAK_REPORT = "virtual device closed with a live object"


@pytest.fixture(autouse=True)
def no_object_left_open():
    gc.collect()
    before = adreno.live_handles()
    yield
    gc.collect()  # objects the test dropped without close() are closed by their finalizers
    assert adreno.live_handles() == before, "the test left library objects open"


def pytest_sessionfinish(session, exitstatus):
    gc.collect()
    if adreno.live_handles() != 0:
        print(f"\nadreno: {adreno.live_handles()} library object(s) still open at the end of the session")
        session.exitstatus = 1


@pytest.fixture(params=["virtual-kgsl", "virtual-msm", "virtual-kgsl:a740", "virtual-msm:a740"])
def device(request, capfd, monkeypatch):
    monkeypatch.setenv("ADRENO_DEVICE", request.param)
    opened = adreno.Device.open()
    yield opened
    opened.close()
    gc.collect()  # memoryviews of buffers hold their memory until collected
    assert LEAK_REPORT not in capfd.readouterr().err


@pytest.fixture
def vector_add_source():
    return (ROOT / "examples" / "kernels" / "vector_add.s").read_text()


@pytest.fixture
def fixtures_dir():
    directory = pathlib.Path(os.environ.get("ADRENO_IR3_FIXTURES_DIR", ROOT.parent / "shared" / "fixtures" / "ir3-a630"))
    if not (directory / "scalar.json").exists():
        pytest.skip(f"no ir3 fixtures at {directory}")
    return directory
