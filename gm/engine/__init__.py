"""The pure adjudication core: no I/O, no clock, no database. State and orders in, results out."""
