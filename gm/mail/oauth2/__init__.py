"""OAuth2 sign-in to the judge's mailbox, for providers that refuse passwords (Microsoft 365 and
Outlook.com) or want OAuth2 from programs (Google): IMAP and SMTP log in with XOAUTH2 and an access
token instead of a password.

* providers.py: the known providers' endpoints and scopes, and a generic one from the settings.
* grant.py: the grant `gm mail authorize` obtained once (its refresh token), in a file only the
  judge's user can read, beside the judge's secret key; whether the provider has refused it since.
* tokens.py: access tokens, refreshed before they expire and again when a server refuses one, in
  each process that logs in (gm serve, its outbox processes).
* authorize.py: the one-time grant: the device code (Microsoft), or a browser sent back to a
  loopback address (Google).

The protocol itself is requests-oauth2client's; no token is ever logged. Below the mail rooms: it
imports the settings only.
"""
