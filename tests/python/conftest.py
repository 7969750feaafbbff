"""[virtual-kernel] Fixtures for the Python package's tests: each test that takes `device` runs
once per virtual kernel, and fails when the library reports a virtual device closed with live
objects (a leak)."""
import gc
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))  # the package from the source tree

import adreno  # noqa: E402

LEAK_REPORT = "virtual device closed with a live object"


@pytest.fixture(params=["virtual-kgsl", "virtual-msm"])
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
