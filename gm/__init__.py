"""gm: a play-by-email game master for Diplomacy and its historical variants."""
__version__ = "0.1.0"
