"""The demo: a server, a simulated game, a tournament and a rated arena."""
