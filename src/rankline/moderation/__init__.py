"""Moderation: entries removed and leaderboards reset by hand, and the audit log of every
change made by hand."""
