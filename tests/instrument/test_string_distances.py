"""String and container conditions get distances that lead toward the other outcome."""

from __future__ import annotations

import textwrap

from miogen.instrument import runtime
from miogen.instrument.loader import compile_instrumented


def distances_to_true(source: str, inputs: list) -> list[float]:
    """The distance to the true branch of the condition on line 2, for each input."""
    namespace = {"__miogen_probe__": runtime}
    exec(compile_instrumented(textwrap.dedent(source).lstrip(), "<d>"), namespace)
    measured = []
    for value in inputs:
        runtime.reset()
        namespace["f"](value)
        measured.append(runtime.DISTANCES[2][0])
    return measured


def assert_leads_there(measured: list[float]) -> None:
    assert measured == sorted(measured, reverse=True), measured
    assert measured[-1] == 0 and measured[-2] > 0


def test_a_prefix_and_a_length():
    source = """
    def f(code):
        if code.startswith("AB-") and len(code) == 7:
            return 1
    """
    assert_leads_there(
        distances_to_true(source, ["", "X", "A", "AB-", "AB-1", "AB-12345", "AB-1234"])
    )


def test_suffixes_and_character_classes():
    suffix = 'def f(name):\n    if name.endswith((".txt", ".md")):\n        return 1\n'
    assert_leads_there(distances_to_true(suffix, ["", "a", "a.t", "a.tx", "a.md"]))
    digits = "def f(text):\n    if text.isdigit():\n        return 1\n"
    assert_leads_there(distances_to_true(digits, ["abc", "a1c", "a12", "", "123"]))
    upper = "def f(text):\n    if text.isupper():\n        return 1\n"
    assert_leads_there(distances_to_true(upper, ["abc", "ab", "aB", "AB"]))


def test_patterns_compiled_or_not():
    function = (
        'import re\ndef f(text):\n    if re.fullmatch(r"[A-Z]{2}\\d{2}", text):\n        return 1\n'
    )
    source = "import re\n" + function.split("\n", 1)[1]
    namespace = {"__miogen_probe__": runtime}
    exec(compile_instrumented(source, "<d>"), namespace)
    measured = []
    for value in ["", "a", "AB", "AB1", "AB12"]:
        runtime.reset()
        namespace["f"](value)
        measured.append(runtime.DISTANCES[3][0])
    assert_leads_there(measured)
    compiled = """
    import re
    SERIAL = re.compile(r"\\d{3}")
    def f(text):
        if SERIAL.match(text):
            return 1
    """
    namespace = {"__miogen_probe__": runtime}
    exec(compile_instrumented(textwrap.dedent(compiled).lstrip(), "<d>"), namespace)
    measured = []
    for value in ["", "1", "12", "123"]:
        runtime.reset()
        namespace["f"](value)
        measured.append(runtime.DISTANCES[4][0])
    assert_leads_there(measured)


def test_membership_in_strings_and_among_keys():
    substring = 'def f(text):\n    if "key" in text:\n        return 1\n'
    assert_leads_there(distances_to_true(substring, ["", "a", "xxkxx", "xkez", "akey"]))
    keys = 'def f(name):\n    if name in {"alpha": 1, "beta": 2}:\n        return 1\n'
    assert_leads_there(distances_to_true(keys, ["", "z", "bz", "bet", "beta"]))


def test_a_module_function_named_like_a_string_method_is_just_called():
    source = """
    def match(x):
        return x > 2

    def f(x):
        if match(x):
            return 1
    """
    namespace = {"__miogen_probe__": runtime}
    exec(compile_instrumented(textwrap.dedent(source).lstrip(), "<d>"), namespace)
    runtime.reset()
    assert namespace["f"](3) == 1 and runtime.DISTANCES[5] == [0.0, 1.0]
