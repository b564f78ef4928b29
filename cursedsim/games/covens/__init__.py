"""Curses & Covens (covens): the GAME record is written by the lead."""
