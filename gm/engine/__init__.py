"""The pure adjudication core: no I/O, no clock, no database. State and orders in, results out.

It imports nothing of gm, and knows no variant: a variant reaches it as data and hooks (variant.py)."""
