"""Functions that take only ``**options`` or ``*values``, as formatter registries do."""


def render(**options):
    if not options["items"]:
        return ""
    text = options["head"] + "(" + ", ".join(options["items"])
    width = options.get("width", 40)
    if len(text) > width:
        text = text[:width]
    if "suffix" in options:
        text += options["suffix"]
    return text + ")"


def largest(*values):
    if not values:
        return None
    best = values[0]
    for value in values[1:]:
        if value > best:
            best = value
    return best
