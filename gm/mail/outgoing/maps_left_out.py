"""What a mail says of a map that could not be drawn. A mail's words are written when it is
queued, its maps drawn when it is sent (gm.mail.outgoing.mail_maps.draw_attachments), and a picture that
cannot be drawn then (its phase rolled back, a position the renderer refuses) is left out: the
HTML must then not show it (a broken image, `cid:` naming no part), nor the text say it is
attached."""
from __future__ import annotations

import re
from typing import Any

NOT_DRAWN_HTML = "<em>The map could not be drawn.</em>"

# How the judge's mail says a map is attached: the results, start and correction mails ('The map
# of the position now is attached.', one sentence each, in the order of their pictures), and
# MAP's answer ('Fall 1901, Movement: the map is attached (g1-fall-1901-movement.png)').
_SENTENCE = re.compile(r"The map of (?P<what>[^\n]*?) is attached\.")


def _ident(attachment: dict[str, Any]) -> tuple[Any, Any]:
    return attachment.get("filename"), attachment.get("content_id")


def without_missing_maps(before: list[dict[str, Any]] | None, after: list[dict[str, Any]] | None, text: str,
                         html: str | None) -> tuple[str, str | None]:
    """The text and HTML of a mail whose attachments were `before` and, its maps drawn, are
    `after`: each map left out is no longer shown in the HTML, and the text says it could not be
    drawn where it said it was attached."""
    kept = {_ident(a) for a in after or []}
    missing = [a for a in before or [] if _ident(a) not in kept]
    if not missing:
        return text, html
    inline = [a for a in before or [] if a.get("content_id")]  # the pictures the HTML shows, in order
    sentences = list(_SENTENCE.finditer(text))
    paired = len(sentences) == len(inline)
    untold: list[str] = []
    spans: list[tuple[int, int, str]] = []  # sentences to say otherwise, where they stand
    for attachment in missing:
        name, cid = _ident(attachment)
        if cid and html is not None:
            html = re.sub(rf'<img src="cid:{re.escape(cid)}"[^>]*>', NOT_DRAWN_HTML, html)
        said = f"the map is attached ({name})"
        if said in text:
            text = text.replace(said, f"the map could not be drawn ({name})")
        elif cid and paired:
            sentence = sentences[inline.index(attachment)]
            spans.append((*sentence.span(), f"The map of {sentence['what']} could not be drawn."))
        else:
            untold.append(str(name))
    for start, end, words in sorted(spans, reverse=True):
        text = text[:start] + words + text[end:]
    if untold:
        text = text.rstrip("\n") + "\n\n" + "".join(f"The map {n} could not be drawn.\n" for n in untold)
    return text, html
