"""The life of boards' periods: closed and archived, their events and snapshots."""
