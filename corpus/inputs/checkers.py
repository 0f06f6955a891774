"""Entry points that guard their argument's type, and a private checker object they build."""


def is_text(value: object) -> bool:
    return isinstance(value, str)


class _DigitsChecker:
    def __init__(self, text: str) -> None:
        if not is_text(text):
            raise TypeError("text must be a string")
        self.text = text.replace("-", "")

    def valid(self) -> bool:
        if len(self.text) == 9:
            return self.text.isdigit()
        return False


def is_account_number(text: str) -> bool:
    """``123-456-789`` (hyphens anywhere) is an account number."""
    return _DigitsChecker(text).valid()


def word_count(text: str) -> int:
    if not isinstance(text, str):
        raise TypeError("text must be a string")
    return len(text.split())
