"""Prices under a configuration from the sibling module."""

from .config import Config


def price(net, config, quantity=1):
    if config.vat < 0:
        raise ValueError("negative vat")
    total = net * quantity * (1 + config.vat)
    if config.discounts and quantity >= 10:
        total *= 0.9
    if config.currency == "JPY":
        return round(total)
    return round(total, 2)


def default_config() -> Config:
    return Config()
