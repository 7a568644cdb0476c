"""The column types a ``@mapping`` names, by how a reader reads the cells:
one list that the readers (CSV rows, Arrow kernels, Spark) and the program
check share, so a type one of them reads is never refused by another."""

STRING_TYPES = ("string", "str")  # the text as it is
NUMBER_TYPES = ("int", "integer", "long", "double", "number", "decimal")  # an exact number, required (SQL's and Spark's names too)
FLOAT_TYPES = ("float",)  # a binary floating-point number (a measured value)
BOOLEAN_TYPES = ("bool", "boolean")  # true/false/1/0/yes/no/#T/#F
DATE_TYPES = ("date", "datetime", "timestamp")  # an ISO date or datetime

MAPPING_TYPES = STRING_TYPES + NUMBER_TYPES + FLOAT_TYPES + BOOLEAN_TYPES + DATE_TYPES
