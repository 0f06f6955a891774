"""Untyped functions whose bodies and docstrings show the types they need."""


def describe(record, indent=2):
    """A report line for each field of ``record``, a mapping."""
    lines = []
    for key, value in record.items():
        if key.startswith("_"):
            continue
        if isinstance(value, float):
            lines.append(" " * indent + f"{key}: {value:.2f}")
        elif isinstance(value, list):
            lines.append(" " * indent + f"{key}: {len(value)} items")
        else:
            lines.append(" " * indent + f"{key}: {value}")
    return "\n".join(lines)


def normalize(name, separator):
    if not name.strip():
        raise ValueError("empty name")
    words = name.lower().split()
    if len(words) > 3:
        words = words[:3]
    return separator.join(words)


def scale(values, factor):
    if factor == 0:
        return []
    total = 0
    for item in values:
        total += item
    if total > 100:
        return [v * factor for v in values]
    return [v / factor for v in values]


def parse_header(header, strict):
    """Split a header line into its name and value.

    Args:
        header (str): the line, ``Name: value``.
        strict (bool): refuse lines without a colon.

    Returns:
        tuple: the name and the value.
    """
    if ":" not in header:
        if strict:
            raise ValueError("no colon")
        return header, ""
    name, _, value = header.partition(":")
    return name.strip(), value.strip()


def clamp(value, low, high):
    """Clamp a number into a range.

    Parameters
    ----------
    value : float
        the number
    low : float
    high : float
    """
    if low > high:
        raise ValueError("empty range")
    if value < low:
        return low
    if value > high:
        return high
    return value


def repeat(text, times):
    """Repeat some text.

    :param text: what to repeat
    :type text: str
    :param times: how often
    :type times: int
    """
    if times < 0:
        raise ValueError("negative")
    if times > 10 and text:
        return text[:1] * times
    return text * times


def render(template, values):
    return template.format(**values)


def report(path):
    return render("{name}: {size}", {"name": path, "size": len(path)})
