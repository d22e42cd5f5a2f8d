"""The mail channel, in rooms along the path a mail takes (each imports only from the rooms before it):

* budget, backoff: what every room shares (the security budget; how long to wait on a failed server).
* intake/: a raw mail read (MIME, the reply text, redaction of passwords, DKIM and who really sent
  it, sign-on passwords, when it was written).
* commands/: the language, one module a command; what the commands share is in commands/context.py,
  below outgoing, which uses it too.
* outgoing/: what the judge sends (acknowledgements, the game's own mail, press) and the outbox.
* prepared: what a batch of mails needs before its transaction (DKIM keys looked up, new
  passwords hashed), so that nothing slow holds the database.
* ingest, retention: a mail taken in from end to end; how long mail is kept. Above them inbox (the
  IMAP watcher) and embedded (the embedded mail servers).

It renders the view of a game (gm.view) and may import everything below it (the game's life, the
store, the maps, the settings), never the pages (gm.web), its sibling channel."""
