"""The life of boards and periods: definitions kept current, periods closed and archived."""
