"""Rating boards: match results checked, rated in serial order, and verified."""
