"""The write path: submissions checked, group-committed, taken into the log and applied."""
