"""Child processes of the harness (the measuring worker, the pre-build pool) end with their parent.

A worker stuck in a hanging kernel never reads its pipe again, so it would not notice that the
campaign (or ``kgraph measure``) that started it was killed: it would spin on the CPU forever.
Two independent guards stop it:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel sends SIGKILL to the child the moment
  its parent thread exits (no Python code needs to run in the child, so a kernel holding every
  core does not delay it);
* everywhere, a daemon thread compares ``os.getppid()`` with the parent's pid once a second and
  SIGKILLs its own process when the parent is gone (re-parented to init or a subreaper).

The parent's pid is passed in by the parent, so a parent that died before the child got here is
noticed too.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
WATCH_INTERVAL_S = 1.0


def die_with_parent(parent_pid: int | None, interval_s: float = WATCH_INTERVAL_S) -> bool:
    """Arrange for this process to be killed when the process ``parent_pid`` ends.

    Args:
        parent_pid: pid of the process that started this one (None: ``os.getppid()`` now).
        interval_s: how often the watchdog thread checks the parent.

    Returns True when the kernel-level guard (``PR_SET_PDEATHSIG``) is in place, False when only the
    watchdog thread is (not Linux, or prctl unavailable).
    """
    parent_pid = os.getppid() if parent_pid is None else int(parent_pid)
    armed = _set_pdeathsig(signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the guard was set
        _kill_self()
    watchdog = threading.Thread(target=_watch_parent, args=(parent_pid, interval_s), daemon=True,
                                name="kgraph-parent-watchdog")
    watchdog.start()
    return armed


def _set_pdeathsig(sig: int) -> bool:
    """``prctl(PR_SET_PDEATHSIG, sig)`` through libc; False where that is not possible.

    Args:
        sig: the signal the kernel sends this process when its parent thread exits.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int, interval_s: float) -> None:
    """Loop of the watchdog thread: kill this process once ``parent_pid`` is no longer the parent.

    Args:
        parent_pid: the pid the parent had at start; interval_s: seconds between checks.
    """
    while True:
        time.sleep(interval_s)
        if os.getppid() != parent_pid:
            _kill_self()


def _kill_self() -> None:
    """End this process at once (SIGKILL: no cleanup that a hung OpenCL driver could block)."""
    os.kill(os.getpid(), signal.SIGKILL)
