"""Automatic evidence over a snapshot of a change (pure: checks return findings)."""
