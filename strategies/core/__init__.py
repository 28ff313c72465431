"""Pieces every game's bots share."""
