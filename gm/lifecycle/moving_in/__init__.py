"""A game under way on another judge, moved in to continue here: its text read (a DPjudge status
file, njudge's or DPjudge's mail, gm's own position text), checked against the variant (every
problem named, line by line, nothing guessed), and a forming game made to take it, paused.

Pure of mail: `gm game import` and the GM's IMPORT mail the players their confirmation codes."""
from __future__ import annotations

from gm.lifecycle.moving_in.found import Problem, Refused
from gm.lifecycle.moving_in.game import move_in
from gm.lifecycle.moving_in.position import Position, summary
from gm.lifecycle.moving_in.reading import read_position, same_board

__all__ = ["Position", "Problem", "Refused", "move_in", "read_position", "same_board", "summary"]
