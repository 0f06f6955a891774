"""Text helpers for product pages: slugs and quantities typed by customers."""


def slugify(text: str) -> str:
    if not text:
        raise ValueError("empty text")
    out = []
    for char in text.lower():
        if char.isalnum():
            out.append(char)
        elif out and out[-1] != "-":
            out.append("-")
    slug = "".join(out).strip("-")
    if len(slug) > 40:
        slug = slug[:40].rstrip("-")
    return slug


def parse_quantity(text: str) -> int:
    text = text.strip().lower()
    if text == "dozen":
        return 12
    if text.endswith("x") and text[:-1].isdigit():
        return int(text[:-1])
    if text.startswith("x") and text[1:].isdigit():
        return int(text[1:])
    if text.isdigit():
        value = int(text)
        if value > 999:
            raise ValueError("too many")
        return value
    raise ValueError(f"not a quantity: {text!r}")
