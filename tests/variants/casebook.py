"""A variant's case files as its tests read them: every case by id, each run through the engine
once (gm.casefile), and its adjudication."""
from __future__ import annotations

from pathlib import Path

from gm.casefile import Case, CaseRun, read_cases, run_case
from gm.engine.adjudicator import Adjudication


class CaseBook:
    def __init__(self, folder: Path) -> None:
        self.files = sorted(folder.glob("*.txt"))
        self.all: list[tuple[Path, Case]] = [(f, c) for f in self.files for c in read_cases(f)]
        self.by_id = {c.id: c for _, c in self.all}
        self._runs: dict[str, CaseRun] = {}

    def run(self, case_id: str) -> CaseRun:
        if case_id not in self._runs:
            self._runs[case_id] = run_case(self.by_id[case_id])
        return self._runs[case_id]

    def adj(self, case_id: str) -> Adjudication:
        """The case's adjudication (the engine must not have failed)."""
        a = self.run(case_id).adjudication
        assert a is not None, self.run(case_id).error
        return a
