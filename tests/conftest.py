"""Plumbing shared by every test module."""
import pytest

from astjax.errors import give_every_frame_a_line


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test's exception whose traceback has an entry without a line (Python 3.11 gives None for a frame
    stopped on a lineless cleanup instruction, as when the adversarial harness's time limit interrupts
    compiled code) would crash pytest's report and with it the whole run (INTERNALERROR): give every entry
    a line before the report is written."""
    if call.excinfo is not None:
        give_every_frame_a_line(call.excinfo.value)
        call.excinfo = pytest.ExceptionInfo.from_exception(call.excinfo.value)
    yield
