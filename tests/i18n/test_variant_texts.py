"""What a variant's data tells its players (the notes of the start mail, its title where it is no
name) is written in every language the judge speaks: from the variant's language files."""
from __future__ import annotations

import pytest

from gm.i18n import ENGLISH, LANGUAGES, translated
from gm.variants import REGISTRY, load_variant

OTHERS = [language for language in LANGUAGES if language != ENGLISH]
# titles that are names, the same in every language
NAMES = {"ambition": "Ambition & Empire (2006)", "1700ad": "1700AD II", "youngstown": "Youngstown"}


@pytest.mark.parametrize("variant", list(REGISTRY))
@pytest.mark.parametrize("language", OTHERS)
def test_every_note_and_title_is_in_the_language(variant: str, language: str) -> None:
    v = load_variant(variant)
    if variant in NAMES:
        assert translated(v.title, language) == NAMES[variant]
    else:
        assert translated(v.title, language) != str(v.title), v.title
    for note in v.notes:
        assert translated(note, language) != str(note), note[:60]
    assert [translated(note, ENGLISH) for note in v.notes] == [str(note) for note in v.notes]
