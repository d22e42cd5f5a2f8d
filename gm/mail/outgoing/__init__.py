"""What the judge sends: the acknowledgement of a mail (reply), the mail it sends of its own accord
about a game (game_mail) and the maps it carries (mail_maps), press (press), and the outbox that
sends them all (outbox, its process outbox_process, its log mail_log, maps_left_out for a picture
that could not be drawn, pacing under the provider's limits, signing with DKIM, list_headers, and
undelivered for the mail that comes back).

It renders the view of a game (gm.view) and imports intake and the commands' shared module
(gm.mail.commands.context), never a command."""
