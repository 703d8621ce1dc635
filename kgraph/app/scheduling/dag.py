"""Tiled Cholesky and LU task graphs (right-looking, tile size ``b``, ``t`` x ``t`` tiles).

Dependencies follow the data: a task depends on the last writer of every tile it reads or writes
(read-after-write and write-after-write; tiles are never read after a later write in these
algorithms, so write-after-read needs no edge).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Task:
    """One tile task.

    Args:
        id: position in submission order.
        kind: ``potrf | trsm | syrk | gemm | getrf``.
        tile: tile size b (the task works on b x b tiles).
        reads / writes: tile coordinates ``(i, j)`` read / written.
        deps: ids of the tasks that must finish first.
    """

    id: int
    kind: str
    tile: int
    reads: tuple[tuple[int, int], ...]
    writes: tuple[tuple[int, int], ...]
    deps: list[int] = field(default_factory=list)


class _Builder:
    def __init__(self, tile: int):
        self.tile, self.tasks, self.last_writer = tile, [], {}

    def add(self, kind: str, reads, writes) -> None:
        task = Task(len(self.tasks), kind, self.tile, tuple(reads), tuple(writes))
        task.deps = sorted({self.last_writer[t] for t in (*task.reads, *task.writes) if t in self.last_writer})
        for t in task.writes:
            self.last_writer[t] = task.id
        self.tasks.append(task)


def cholesky_dag(tiles: int, tile: int) -> list[Task]:
    """Lower tiled Cholesky: POTRF, TRSM, SYRK, GEMM; ``t(t+1)(t+2)/6`` tasks for ``t`` tiles."""
    b = _Builder(tile)
    for k in range(tiles):
        b.add("potrf", [], [(k, k)])
        for i in range(k + 1, tiles):
            b.add("trsm", [(k, k)], [(i, k)])
        for i in range(k + 1, tiles):
            b.add("syrk", [(i, k)], [(i, i)])
            for j in range(k + 1, i):
                b.add("gemm", [(i, k), (j, k)], [(i, j)])
    return b.tasks


def lu_dag(tiles: int, tile: int) -> list[Task]:
    """Tiled LU without pivoting: GETRF, TRSM (row and column panels), GEMM."""
    b = _Builder(tile)
    for k in range(tiles):
        b.add("getrf", [], [(k, k)])
        for j in range(k + 1, tiles):
            b.add("trsm", [(k, k)], [(k, j)])
        for i in range(k + 1, tiles):
            b.add("trsm", [(k, k)], [(i, k)])
        for i in range(k + 1, tiles):
            for j in range(k + 1, tiles):
                b.add("gemm", [(i, k), (k, j)], [(i, j)])
    return b.tasks
