"""A game's life once it has players: its house rules and deadlines, the end of each phase (the
adjudicator called with the orders on file, defaults for what is missing, lateness and civil
disorder, phases with nothing to decide resolved at once), reminders and the history of results.

Pure of mail: the mail side (gm.mail.outgoing.game_mail) turns what happens here into mail, in the same
transaction, and the scheduler (gm.scheduler) calls both at each deadline.
"""
