"""The table assistant: CLI, live session loop, state tracking, speech announcer, game journal."""

__version__ = "0.1.0"
