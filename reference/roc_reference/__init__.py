"""RoC reference runtime: an exact, readable implementation of the Return of Control 1.0 rules."""

SPEC_VERSION = "1.0"
