"""What the judge sends: the acknowledgement of a mail (reply), the mail it sends of its own accord
about a game (game_mail), press (press), and the outbox that sends them all (outbox, its process
outbox_process, its log mail_log, and maps_left_out for a picture that could not be drawn).

It renders the view of a game (gm.view) and imports intake and the commands' shared module
(gm.mail.commands.context), never a command."""
