"""Mail for the judge: message.py turns one inbound raw mail into what the judge needs, purely."""
