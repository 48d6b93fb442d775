"""The audit log: who changed what by hand, when, and why (``log``), and its answers.

Each change made by hand writes its entry in the change's own transaction, through the
store (``rankline.store.audit``); this package holds the log's rules: a reason's bounds,
entries made for the caller, pages of the log and their cursors."""
