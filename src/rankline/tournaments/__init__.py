"""Tournaments: definitions, editions, entry, results and their webhooks."""
