"""The CLI's error for bad input: one line on stderr and a non-zero exit, never a traceback."""


class UserError(Exception):
    """Bad input from the user. ``code`` is the exit status (2 unless a verb documents otherwise)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
