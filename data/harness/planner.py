"""Launch plans made ahead of the measuring loop.

A campaign used to plan every kernel before its first launch (``sample_launches`` over each spec's whole
size grid: 95 s of a 460 s H200 call for 1,500 generated kernels, with the device idle). ``PlanAhead``
makes the same plans on a thread, in visit order, while the worker measures the kernels already planned;
the loop waits only when it overtakes the planner. The plans are the ones made up front, element for
element (``tests/test_harness_overhead.py``).
"""
from __future__ import annotations

import threading
import time


class PlanAhead:
    """Plans ``make_plan(spec) -> list`` of ``specs`` in order on a daemon thread.

    Args:
        specs: the kernels, in visit order; make_plan: the plan of one spec (called on the thread).

    ``busy_s``: seconds the thread spent planning; ``waited_s``: seconds :meth:`get` blocked.
    """

    def __init__(self, specs, make_plan):
        self.order = [s.kernel_id for s in specs]
        self.specs = {s.kernel_id: s for s in specs}
        self._make_plan = make_plan
        self._plans: dict = {}
        self._error: BaseException | None = None
        self._ready = threading.Condition()
        self._stop = False
        self.busy_s = 0.0
        self.waited_s = 0.0
        self._thread = threading.Thread(target=self._run, name="kgraph-plan-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for kernel_id in self.order:
            if self._stop:
                return
            start = time.perf_counter()
            try:
                plan = list(self._make_plan(self.specs[kernel_id]))
            except BaseException as exc:  # noqa: BLE001 - handed to the loop by get()
                with self._ready:
                    self._error = exc
                    self._ready.notify_all()
                return
            self.busy_s += time.perf_counter() - start
            with self._ready:
                self._plans[kernel_id] = plan
                self._ready.notify_all()

    def get(self, kernel_id: str) -> list:
        """The plan of ``kernel_id``, waiting for the thread if it is not made yet."""
        start = time.perf_counter()
        with self._ready:
            while kernel_id not in self._plans:
                if self._error is not None:
                    raise self._error
                if not self._thread.is_alive():
                    raise RuntimeError(f"plan-ahead thread ended before planning {kernel_id}")
                self._ready.wait(0.5)
        self.waited_s += time.perf_counter() - start
        return self._plans[kernel_id]

    def peek(self, kernel_id: str) -> list | None:
        """The plan when made already, else None (never waits)."""
        return self._plans.get(kernel_id)

    def close(self) -> None:
        self._stop = True


class ReferencesAhead:
    """The numpy reference outputs of each kernel's correctness check (``expected_outputs``), made on a
    thread of the supervisor at most ``depth`` kernels ahead of the loop, so the worker's check only runs
    the kernel and compares (the reference interpreter of a generated kernel costs ~85 ms here).

    Args:
        specs: the kernels in visit order; seed: the campaign's input seed; depth: kernels made ahead.
    """

    def __init__(self, specs, seed: int, depth: int = 3):
        self.order = list(specs)
        self.index = {s.kernel_id: i for i, s in enumerate(self.order)}
        self.seed, self.depth = seed, depth
        self._made: dict = {}
        self._asked = 0
        self._cond = threading.Condition()
        self._stop = False
        self.busy_s = 0.0
        self._thread = threading.Thread(target=self._run, name="kgraph-references-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from kgraph.data.corpus.check import expected_outputs

        for i, spec in enumerate(self.order):
            with self._cond:
                while not self._stop and i >= self._asked + self.depth:
                    self._cond.wait(1.0)
                if self._stop:
                    return
            start = time.perf_counter()
            try:
                made = expected_outputs(spec, self.seed)
            except Exception:  # noqa: BLE001 - the worker's own check then raises what is wrong
                made = None
            self.busy_s += time.perf_counter() - start
            with self._cond:
                self._made[spec.kernel_id] = made

    def take(self, kernel_id: str):
        """The (digest, outputs) made for ``kernel_id``, or None when not made (yet); never waits."""
        with self._cond:
            self._asked = max(self._asked, self.index.get(kernel_id, -1) + 1)
            self._cond.notify_all()
            return self._made.pop(kernel_id, None)

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
