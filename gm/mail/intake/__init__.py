"""A raw mail, read: its MIME parts (mime), the text the sender wrote (message, reply_text), the
passwords kept out of what is stored (redact), who really sent it (provenance, dkim, dns), the
sign-on passwords checked (auth), addresses (addresses) and when it was written (written).

Knows no command and sends nothing: it imports only gm.mail's shared modules and the layers
below the channels."""
