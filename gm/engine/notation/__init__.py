"""The order language, one module per notation; parser.parse_order reads a line with them all.

words.py       the shared vocabulary and the tokenizer
languages.py   the order words of French, German and Italian beside English's
names.py       provinces, coasts and powers as players write them, in the reader's language first
reader.py      the orders every variant shares (and multiple units' 2A, A/F, MERGE, E, D)
parser.py      parse_order: a line -> an Order, the notations below switched on by the rules
points.py      secret points: DP allocations, IP bids, Supply Point loans and conversions
declarations.py  HOME and PROMOTE
fleet_orders.py  X (deny a direct passage) and B (blockade)
two_moves.py   a fleet's two moves in a turn: 'F NTH - ENG - MAO', '... THEN ...'
turns.py       a unit's steps over a turn of impulses, its year's retreats, builds and removals
spelling.py    spell_order: an order written back in a reader's language
"""
