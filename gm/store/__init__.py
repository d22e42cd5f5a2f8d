"""Storage: the tables (models), engines, sessions and migrations (db), password hashes (passwords),
the judge's secret key (judge_key), backups (backup).

It imports the engine and the variants only: everything that keeps a game imports it."""
