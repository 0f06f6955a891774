"""What a function measures of its parameters (analysis.measures; issue 23: idna's
``encode(s)`` splits ``s`` on dots and, through two helpers, compares the length of each label
with 63 and of the joined result with 253; ``ulabel(label)`` wants ``b"xn--"`` first and "-"
last)."""

from __future__ import annotations

import textwrap

from miogen.analysis.measures import Measures, shapes_of

SOURCE = textwrap.dedent(
    """
    import re
    import unicodedata

    MAX_LABEL = 20
    PREFIX = b"tag:"
    DOTS = re.compile("[.\\u3002]")


    def valid_label(label):
        return len(label) <= MAX_LABEL


    def check_total(name, dot):
        if len(name) > (121 if dot else 120):
            return False
        return True


    def to_ascii(domain: str, strict: bool) -> bytes:
        parts = []
        labels = domain.split(",") if strict else DOTS.split(domain)
        for label in labels:
            raw = label.encode("utf-8")
            if not valid_label(raw):
                raise ValueError("label too long")
            parts.append(raw)
        joined = b".".join(parts)
        if not check_total(name=joined, dot=False):
            raise ValueError("domain too long")
        return joined


    def is_tagged(label: bytes) -> bool:
        label = label.lower()
        if label.startswith(PREFIX):
            return label.decode("latin-1")[-1] == "/"
        return False


    def first_class(text: str) -> bool:
        return unicodedata.category(text[0])[0] == "M"


    def untouched(text: str, count: int) -> int:
        return count + 1


    def aligned(spec: str) -> bool:
        return spec[0] in "<>" or spec[-1] != "%" or spec[0] < "a"
    """
)


def _by_name() -> dict[str, dict[str, Measures]]:
    lines = {
        i + 1: line.split("(")[0].removeprefix("def ")
        for i, line in enumerate(SOURCE.splitlines())
        if line.startswith("def ")
    }
    return {lines[line]: params for line, params in shapes_of(SOURCE).items()}


def test_lengths_come_from_the_function_and_the_functions_its_values_are_passed_to():
    found = _by_name()
    assert found["valid_label"] == {"label": Measures(lengths=(19, 20, 21))}
    assert found["check_total"]["name"].lengths == (119, 120, 121, 122)
    domain = found["to_ascii"]["domain"]
    assert domain.lengths == (19, 20, 21, 119, 120, 121, 122)  # the labels' and the whole's


def test_separators_are_those_of_split_and_of_a_compiled_pattern_of_one_class():
    assert _by_name()["to_ascii"]["domain"].separators == (",", ".")


def test_affixes_come_from_startswith_and_the_first_or_last_item_compared():
    assert _by_name()["is_tagged"] == {"label": Measures(prefixes=("tag:",), suffixes=("/",))}


def test_a_value_computed_from_a_parameter_by_another_function_is_not_its_view():
    found = _by_name()
    assert "first_class" not in found  # category(text[0])[0] is not text[0]
    assert "untouched" not in found


def test_a_first_item_in_a_string_wants_one_of_its_characters():
    assert _by_name()["aligned"] == {"spec": Measures(prefixes=("<", ">"), suffixes=("%",))}
