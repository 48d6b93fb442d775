"""The read path: leaderboard reads, their caches, display names and the change feed."""
