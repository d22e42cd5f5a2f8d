"""Order text -> typed Order values. The only place where players' words become orders.

The parser understands the order language players really type (see tests/engine/test_parse.py
and tests/engine/test_spellings.py) and never raises: text it cannot understand comes back as a
ParsedOrder with a precise error. It does not judge legality (adjacency, whether a unit is
there, ...): check_order does that. Only where words can be read as two different orders
('A Mar S A Par-Bur' on a map with a province named 'Par-Bur') does the position decide between
them; when it cannot, the error names both readings.

Each notation has its module in gm/engine/notation/ (see its __init__); this module is the door.
"""
from __future__ import annotations

from gm.engine.notation.names import resolve_power, split_power_prefix
from gm.engine.notation.languages import LANGUAGES
from gm.engine.notation.parser import parse_order
from gm.engine.notation.spelling import spell_order
from gm.engine.notation.reader import ParsedOrder, lookup_location, resolve_location
from gm.engine.notation.turns import order_texts
from gm.engine.notation.words import KEYWORDS, TYPES
from gm.engine.notation.words import norm as _norm

__all__ = ["KEYWORDS", "LANGUAGES", "TYPES", "ParsedOrder", "lookup_location", "order_texts", "parse_order",
           "resolve_location", "resolve_power", "spell_order", "split_power_prefix", "_norm"]
