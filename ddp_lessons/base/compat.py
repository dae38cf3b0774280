"""What the package takes from Pythons newer than its floor (3.10): `StrEnum`."""

import enum

if hasattr(enum, "StrEnum"):  # Python 3.11+
    StrEnum = enum.StrEnum
else:
    class StrEnum(str, enum.Enum):
        """A str Enum whose members print, format and compare as their values (Python 3.11's)."""

        __str__ = str.__str__
        __format__ = str.__format__
