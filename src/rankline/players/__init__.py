"""Players: profiles, history, friends, bans and erasure."""
