"""Functions that need dates, durations and decimal amounts."""

import datetime
from decimal import Decimal


def quarter_end(day: datetime.date) -> datetime.date:
    quarter = (day.month - 1) // 3
    if quarter == 3:
        return datetime.date(day.year, 12, 31)
    first_of_next = datetime.date(day.year, 3 * quarter + 4, 1)
    return first_of_next - datetime.timedelta(days=1)


def is_overdue(due: datetime.date, today: datetime.date, grace: datetime.timedelta) -> bool:
    if today.weekday() >= 5:
        return False
    if due.year < today.year - 1:
        return True
    return today - due > grace


def interest(amount: Decimal, rate: Decimal) -> Decimal:
    if amount < 0:
        raise ValueError("negative amount")
    if rate > Decimal("0.5"):
        raise ValueError("usury")
    return (amount * rate).quantize(Decimal("0.01"))


def age_on(birthday, when):
    """Age in whole years.

    Args:
        birthday (datetime.date): the date of birth.
        when (datetime.date): the day to count to.
    """
    years = when.year - birthday.year
    if (when.month, when.day) < (birthday.month, birthday.day):
        years -= 1
    if years < 0:
        raise ValueError("born later")
    return years
