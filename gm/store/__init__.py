"""Storage: the tables (models), engines, sessions and migrations (db), password hashes (passwords)."""
